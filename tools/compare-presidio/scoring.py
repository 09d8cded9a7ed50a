"""Scoring shared by the Presidio comparisons: eval_detect.py's matching (greedy one-to-one by
type, IoU >= 0.5 over code-point spans) and precision/recall/F1 from (tp, fp, fn) counts."""


def iou(a, b):
    inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    return inter / union if union else 0.0


def score(gold, pred, totals):
    """Add one record's matches to `totals` (type -> [tp, fp, fn])."""
    used = set()
    for g in gold:
        agg = totals.setdefault(g["type"], [0, 0, 0])
        best, best_i = 0.0, None
        for i, p in enumerate(pred):
            if i in used or p["type"] != g["type"]:
                continue
            v = iou((g["start"], g["end"]), (p["start"], p["end"]))
            if v > best:
                best, best_i = v, i
        if best >= 0.5:
            used.add(best_i)
            agg[0] += 1
        else:
            agg[2] += 1
    for i, p in enumerate(pred):
        if i not in used:
            totals.setdefault(p["type"], [0, 0, 0])[1] += 1


def prf(counts):
    tp, fp, fn = counts
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def f1(counts):
    return prf(counts)[2]
