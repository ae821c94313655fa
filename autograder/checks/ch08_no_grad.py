"""The checks of chapter 8, modes (T15 and T16): no_grad makes constants, nests,
restores the mode after an exception and leaves other threads recording; an OpCounter
layer counts the ops of an MLP's loss by name, also inside no_grad and after an error,
and not those of another thread."""

from autograder.checks.toolkit import Case, cases_of


def wrong_facts(got, wanted):
    """The keys of `wanted` whose value `got` (a dict a run returned) does not have."""
    return [key for key, value in wanted.items() if got.get(key) != value]


@cases_of("ModeBlock.__enter__")
def mode_cases(rng):
    """T15: what no_grad must do, each judged by the facts the run reports."""

    def constants(found):
        from engine import Tensor

        w = Tensor([1.0, 2.0])
        with found.no_grad():
            y = (w * 3.0).exp()
        z = y * w
        return {
            "op": y.op is None,
            "parents": y.parents == (),
            "requires_grad": y.requires_grad,
            "after": z.op is not None and z.requires_grad,
        }

    def nesting(found):
        from engine import Tensor
        from engine.core import modes

        outside = modes.current
        with found.no_grad():
            with found.no_grad():
                inner = (Tensor(1.0) * 2.0).op is None
            between = (Tensor(1.0) * 2.0).op is None
        return {
            "inner": inner,
            "between": between,
            "after": (Tensor(1.0) * 2.0).op is not None,
            "restored": modes.current is outside,
        }

    def error(found):
        from engine import Tensor
        from engine.core import modes

        outside = modes.current
        try:
            with found.no_grad():
                raise KeyError("inside the block")
        except KeyError:
            pass
        return {
            "restored": modes.current is outside,
            "records": (Tensor(1.0) * 2.0).op is not None,
        }

    def threads(found):
        import threading

        from engine import Tensor

        inside, done, seen, failed = threading.Event(), threading.Event(), {}, []

        def evaluate():
            try:
                with found.no_grad():
                    inside.set()
                    done.wait(10)
                    seen["worker"] = (Tensor(1.0) * 2.0).op is None
            except BaseException as error:  # raised again in the case's own thread
                failed.append(error)
                inside.set()

        worker = threading.Thread(target=evaluate)
        worker.start()
        inside.wait(10)
        seen["main"] = (Tensor(1.0) * 2.0).op is not None
        done.set()
        worker.join()
        if failed:  # a stub that raises NotImplementedError reads as one
            raise failed[0]
        return seen

    def expect(what, wanted):
        def judge(got):
            wrong = wrong_facts(got, wanted)
            return (
                f"{what}: wrong for {', '.join(wrong)} (got {got})" if wrong else None
            )

        return judge

    return [
        Case(
            "a result computed inside no_grad is a constant",
            constants,
            expect(
                "inside no_grad",
                {"op": True, "parents": True, "requires_grad": False, "after": True},
            ),
        ),
        Case(
            "blocks nest: the inner one restores what it found",
            nesting,
            expect(
                "nested no_grad",
                {"inner": True, "between": True, "after": True, "restored": True},
            ),
        ),
        Case(
            "an exception inside the block restores the mode",
            error,
            expect("after an exception", {"restored": True, "records": True}),
        ),
        Case(
            "another thread keeps recording",
            threads,
            expect("two threads", {"worker": True, "main": True}),
        ),
    ]


@cases_of("OpCounter")
def op_counter_cases(rng):
    """T16: the counts of an MLP's loss, inside no_grad, after an error and beside
    another thread, each judged by the counts and the facts the run reports."""
    X = rng.normal(size=(5, 2))
    targets = rng.integers(0, 3, 5)

    def mlp_loss(found):
        from engine import cross_entropy, MLP

        net = MLP([2, 4, 3], seed=0)
        with found.OpCounter() as counter:
            loss = cross_entropy(net(X), targets)
        return {"counts": counter.counts, "recorded": loss.op is not None}

    def inside_no_grad(found):
        from engine import MLP, no_grad
        from engine.core import modes

        net, outside = MLP([2, 4, 3], seed=0), modes.current
        with no_grad():
            with found.OpCounter() as counter:
                out = net(X)
        return {
            "counts": counter.counts,
            "recorded": out.op is not None,
            "restored": modes.current is outside,
        }

    def after_error(found):
        from engine import Tensor
        from engine.core import modes

        outside = modes.current
        try:
            with found.OpCounter() as counter:
                (Tensor(1.0) * 2.0).exp()
                raise KeyError("inside the block")
        except KeyError:
            pass
        after = (Tensor(1.0) * 2.0).op is not None
        return {
            "counts": counter.counts,
            "restored": modes.current is outside,
            "recorded": after,
        }

    def two_threads(found):
        import threading

        from engine import Tensor

        inside, done = threading.Event(), threading.Event()

        def other():
            inside.wait(10)
            for _ in range(7):
                Tensor(1.0).tanh()
            done.set()

        worker = threading.Thread(target=other)
        worker.start()
        try:
            with found.OpCounter() as counter:
                inside.set()
                done.wait(10)
                Tensor(2.0) * 3.0
        finally:  # a counter that fails does not keep the other thread waiting
            inside.set()
            worker.join()
        return {"counts": counter.counts}

    def expect(what, counts, **facts):
        def judge(got):
            if got.get("counts") != counts:
                return f"{what}: counts {got.get('counts')}, expected {counts}"
            wrong = wrong_facts(got, facts)
            if wrong:
                return (
                    f"{what}: {', '.join(wrong)} should be {[facts[k] for k in wrong]}"
                )
            return None

        return judge

    return [
        Case(
            "the ops of an MLP's loss",
            mlp_loss,
            expect(
                "an MLP's loss",
                {"linear": 2, "relu": 1, "cross_entropy": 1},
                recorded=True,
            ),
        ),
        Case(
            "inside no_grad: counted, and still not recorded",
            inside_no_grad,
            expect(
                "inside no_grad",
                {"linear": 2, "relu": 1},
                recorded=False,
                restored=True,
            ),
        ),
        Case(
            "an error inside the block",
            after_error,
            expect(
                "after an error",
                {"multiply": 1, "exp": 1},
                restored=True,
                recorded=True,
            ),
        ),
        Case(
            "another thread's ops are not counted",
            two_threads,
            expect("two threads", {"multiply": 1}),
        ),
    ]
