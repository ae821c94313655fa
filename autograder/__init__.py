"""The graded track: the tasks (tasks.py), their checks (checks.py), and the grader that runs
them in isolation and on a student's whole engine (grading.py, runner.py; tools/grade.py is its
command line). The book's exercises that are graded tasks call their checks from here too."""
