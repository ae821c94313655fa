"""The checks of chapter 13, the transformer (T24): the causal mask of self-attention
for several lengths, judged by mask_problem, which names the usual slips (the wrong
triangle, a masked diagonal, a 0/1 mask, an entry too weak to hide the future) before it
checks what a softmax of scores plus the mask does; and two calls must give separate
arrays."""

import numpy as np

from autograder.checks.toolkit import Case, cases_of


HIDDEN = -1e4  # a mask entry this negative (or -inf) leaves exp(score + entry) at 0


def mask_problem(mask, T, scores):
    """What is wrong with a causal mask for T positions, in words (None if nothing): its
    shape and dtype, the usual slips by name, then what a softmax of `scores` + mask
    does."""
    what = f"causal_mask({T})"
    if not isinstance(mask, np.ndarray):
        return (
            f"{what}: expected an array of shape ({T}, {T}), got {type(mask).__name__}"
        )
    if mask.shape != (T, T):
        return f"{what}: shape {mask.shape}, expected ({T}, {T})"
    if mask.dtype.kind != "f":
        return (
            f"{what}: an array of {mask.dtype}, which cannot hold -inf (the entries "
            "that hide a position)"
        )
    if np.isnan(mask).any():
        first = tuple(int(i) for i in np.argwhere(np.isnan(mask))[0])
        return f"{what}: it holds NaN at {first}"
    if (mask == np.inf).any():
        i, j = np.argwhere(mask == np.inf)[0]
        return (
            f"{what}: entry ({i}, {j}) is +inf, the wrong sign: a masked score must "
            "get -inf added, so that exp gives 0"
        )
    allowed, diagonal = np.tri(T, dtype=bool), np.eye(T, dtype=bool)
    hidden = mask <= HIDDEN
    strictly_below = allowed & ~diagonal
    if T > 1 and hidden[strictly_below].all() and not hidden[~allowed].any():
        return (
            f"{what}: the mask is below the diagonal: position i sees the positions "
            "after it and none before it: the wrong triangle is masked"
        )
    if hidden[diagonal].any():
        i = int(np.argmax(hidden[diagonal]))
        blind = hidden[i, : i + 1].all()
        return f"{what}: the diagonal is masked: position {i} does not see itself" + (
            f", and row {i} has no entry left, so its softmax is NaN (-inf minus -inf)"
            if blind
            else ""
        )
    if (mask[allowed] == 1).all() and (mask[~allowed] == 0).all():
        return (
            f"{what}: a 0/1 mask (1 where allowed) added to the scores hides "
            "nothing: it only tilts the weights (by a factor e) towards the allowed "
            "positions"
        )
    superdiagonal = np.eye(T, k=1, dtype=bool)
    if (
        T > 2
        and not hidden[superdiagonal].any()
        and hidden[~allowed & ~superdiagonal].all()
    ):
        return (
            f"{what}: position i sees position i + 1, the character it has to predict: "
            "the masked triangle starts one diagonal too far up"
        )
    if hidden[allowed].any():
        i, j = np.argwhere(hidden & allowed)[0]
        return (
            f"{what}: position {i} does not see position {j} <= {i}: "
            f"{int((hidden & allowed).sum())} entries on or below the diagonal hide "
            "the past"
        )
    if (mask[allowed] != 0).any():
        i, j = np.argwhere(allowed & (mask != 0))[0]
        return (
            f"{what}: entry ({i}, {j}) is {mask[i, j]:g}, but j <= i may be attended "
            "to: an allowed score must get 0 added"
        )
    if not hidden[~allowed].all():
        i, j = np.argwhere(~allowed & ~hidden)[0]
        if mask[i, j] == 0:
            return (
                f"{what}: entry ({i}, {j}) is 0, so position {i} sees position {j}, "
                f"which comes after it: {int((~allowed & ~hidden).sum())} entries "
                "above the diagonal hide nothing; they must be -inf"
            )
        return (
            f"{what}: entry ({i}, {j}) is {mask[i, j]:g}, too weak to hide position "
            f"{j} from position {i}: exp({mask[i, j]:g}) is not small, so the future "
            "leaks into the weights"
        )
    shifted = scores + mask
    weights = np.exp(shifted - shifted.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    if (np.triu(weights, 1) != 0).any() or not np.allclose(weights.sum(axis=-1), 1):
        return f"{what}: the softmax of scores plus this mask still weights the future"
    return None


@cases_of("causal_mask")
def causal_mask_cases(rng):
    """T24: T = 1, 2, 3 and three random lengths up to 14, each against random scores,
    then two calls that must give equal, separate arrays."""
    made = []
    sizes = [1, 2, 3] + sorted(
        int(T) for T in rng.choice(np.arange(4, 15), 3, replace=False)
    )
    for T in sizes:
        scores = rng.normal(size=(T, T)) * 3

        def run(found, T=T):
            return np.asarray(found.causal_mask(T))

        made.append(
            Case(
                f"T = {T}",
                run,
                lambda got, T=T, scores=scores: mask_problem(got, T, scores),
            )
        )

    def fresh(found):
        first = np.asarray(found.causal_mask(4))
        second = np.asarray(found.causal_mask(4))
        return {
            "same": bool(np.array_equal(first, second)),
            "separate": not np.shares_memory(first, second),
        }

    made.append(
        Case(
            "two calls give equal, separate arrays",
            fresh,
            lambda got: (
                None
                if got["same"] and got["separate"]
                else "causal_mask(4) twice: the two masks differ, or they are one "
                "array (a caller that edits one would change the other)"
            ),
        )
    )
    return made
