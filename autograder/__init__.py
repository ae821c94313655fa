"""The graded track: the tasks (tasks.py), their checks (checks.py), and the grader that
runs them in isolation and on a student's whole engine (grading.py, runner.py;
tools/grade.py is its command line). The book's exercises that are graded tasks call
`check_task` from here.

This file and tasks.py, notebooks.py use the standard library only (`make student` needs
no virtual environment); the checks import NumPy, the engine and PyTorch when they
run."""


def check_task(*definitions, seed=0):
    """Check your definitions of a graded task here, in this process: the task's cases
    (the grader's, with a seed of your choice) run on them and are judged by the
    course's oracles. Prints what is wrong, case by case; returns True if nothing is.

        check_task(Momentum)                      # a class or function the task asks
        for check_task(tangents_times, times_tangents)
    """
    from types import SimpleNamespace

    from autograder import checks, runner, tasks
    from course.exercises import verdict

    names = [getattr(d, "__name__", None) for d in definitions]
    task = next(
        (
            t
            for t in tasks.TASKS
            if any(n in t.names or n == t.names[0].split(".")[0] for n in names)
        ),
        None,
    )
    if task is None:
        raise ValueError(
            f"check_task: no graded task defines {', '.join(map(str, names))}"
        )
    found = SimpleNamespace(**dict(zip(names, definitions)))
    problems = []
    for case in checks.cases(task, seed):
        try:
            got = runner.decoded(
                runner.encoded(case.run(found))
            )  # what the grader sees
        except Exception as error:  # a reader's bug is a finding, not a crash
            problems.append(f"{case.label}: {runner.said(error, {})}")
            continue
        problems.append(case.judge(got))
    return verdict(task.title, problems)
