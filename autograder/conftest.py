"""The autograder's markers (one per task) and its score: passed checks per task, and a total."""
import re

TASKS = ["1.1", "1.2", "2.1", "2.2", "3.1", "3.2", "3.3", "4.1", "9.1", "9.2", "10.1"]


def marker(task):
    return "task" + task.replace(".", "_")


def pytest_configure(config):
    for task in TASKS:
        config.addinivalue_line("markers", f"{marker(task)}: checks of task {task}")


def pytest_terminal_summary(terminalreporter):
    counts = {task: [0, 0] for task in TASKS}
    for outcome in ("passed", "failed", "error"):
        for report in terminalreporter.stats.get(outcome, []):
            if getattr(report, "when", "call") not in ("call", "setup"):
                continue
            match = re.search(r"task(\d+)_(\d+)", " ".join(report.keywords))
            if match:
                task = f"{match.group(1)}.{match.group(2)}"
                counts[task][1] += 1
                counts[task][0] += outcome == "passed"
    graded = {task: c for task, c in counts.items() if c[1]}
    if not graded:
        return
    terminalreporter.section("score")
    for task, (passed, total) in graded.items():
        verdict = "done" if passed == total else "not yet"
        terminalreporter.write_line(f"task {task:>5}: {passed}/{total} checks passed  {verdict}")
    done = sum(p == t for p, t in graded.values())
    terminalreporter.write_line(f"score: {done} of {len(graded)} tasks complete")
