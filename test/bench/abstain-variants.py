"""Scores relevance variants on abstain-study.ts dumps (issue 28, foreign queries).

For each variant (a score of one recall's answer: its top 10 with no floor), prints
  - AUC: P(best own answer scores above the best foreign one), ties half;
  - at the default floor 0.01 where the variant is a relevance: R@10 delta and foreign
    queries answered with nothing;
  - the oracle: the best single threshold on that score that loses at most 1 point of R@10
    (an upper bound for any floor on it, not a mechanism), with the foreign share it abstains on.

  python3 test/bench/abstain-variants.py /tmp/abstain3/<set>.study.jsonl [...]
"""
import json
import math
import sys


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def recall10(q, answer_empty):
    if not q["gold"] or answer_empty:
        return 0.0
    return min(1.0, sum(h["gold"] for h in q["own"]["hits"][:10]) / len(q["gold"]))


def phi(z):
    return 0.5 * math.erfc(-z / math.sqrt(2))


# --- answer-level scores -------------------------------------------------------------

def best(hits, f):
    return max((f(h) for h in hits), default=0.0)


def lex_share(h):
    return min(1.0, h["matched"] / h["possible"]) if h["possible"] > 0 else 0.0


def weight(ans):
    """Query word weight: idf x count per token (absent tokens at the idf of df 0)."""
    return {t: n * idf for t, (n, idf, df) in ans["words"].items()}


def union_share(ans):
    w = weight(ans)
    tot = sum(w.values())
    return sum(v for t, v in w.items() if ans["words"][t][2] > 0) / tot if tot else 0.0


def words_share(h, ans):
    n = len(ans["words"])
    return len(h["words"]) / n if n else 0.0


def content_words_present(ans):
    n = len(ans["words"])
    return sum(1 for t, v in ans["words"].items() if v[2] > 0) / n if n else 0.0


def rare_cover(h, ans):
    """Share of the query's rare words (df <= 1% of the namespace or absent) the memory holds."""
    size = None
    rare = [t for t, (n, idf, df) in ans["words"].items() if idf >= 0.8 * ans["absent"]]
    if not rare:
        return 0.0
    return sum(1 for t in rare if t in h["words"]) / len(rare)


def agreement(h):
    return h["agreement"]


def zgate(q, a):
    """Today's relevance, but a single-text query gets no answer unless some hit's meaning stands above the unrelated pairs (z > 0)."""
    rel = best(a["hits"], lambda h: h["rel"])
    if q["conversation"]:
        return rel
    zs = [h["z"] for h in a["hits"] if h["z"] is not None and h["cos"]]
    return rel if not zs or max(zs) > 0 else 0.0


def agreement_n(q, a):
    """Agreement as Phi(z)^k, k the number of query words matched (each word's coincidence must be discounted)."""
    def rel(h):
        ag = h["agreement"]
        return 1 - (1 - lex_share(h) * ag ** max(1, len(h["words"]))) * (1 - h["sem"])
    return best(a["hits"], rel)


def words_above_mean(q, a):
    """Branch abstain3: a hit's words count only where its cosine is above the unrelated pairs' mean (single-text queries)."""
    def rel(h):
        if q["conversation"] or h["z"] is None or not h["cos"] or h["above"] is None or h["above"] > 0.5:
            return h["rel"]
        return h["sem"]
    return best(a["hits"], rel)


VARIANTS = {
    "words count only above the pairs' mean (kept)": words_above_mean,
    "single-text z > 0 answer gate": zgate,
    "relevance (today)": lambda q, a: best(a["hits"], lambda h: h["rel"]),
    "lexical share": lambda q, a: best(a["hits"], lex_share),
    "lexical share x agreement": lambda q, a: best(a["hits"], lambda h: lex_share(h) * h["agreement"]),
    "semantic share": lambda q, a: best(a["hits"], lambda h: h["sem"]),
    "best z": lambda q, a: best(a["hits"], lambda h: h["z"] if h["z"] is not None else -9),
    "best cosine": lambda q, a: best(a["hits"], lambda h: h["cos"] if h["cos"] is not None else -9),
    "union coverage (query weight present in ns)": lambda q, a: union_share(a),
    "content words present in ns": lambda q, a: content_words_present(a),
    "best content-word share": lambda q, a: best(a["hits"], lambda h: words_share(h, a)),
    "best rare-word cover": lambda q, a: best(a["hits"], lambda h: rare_cover(h, a)),
    "relevance x union coverage": lambda q, a: best(a["hits"], lambda h: h["rel"]) * union_share(a),
    "relevance x content words present": lambda q, a: best(a["hits"], lambda h: h["rel"]) * content_words_present(a),
    "lexical x agreement x words share": lambda q, a: best(a["hits"], lambda h: lex_share(h) * h["agreement"] * words_share(h, a)),
    "agreement Phi(z)^(words matched)": agreement_n,
    "relevance, lexical x Phi(z) x union": lambda q, a: best(a["hits"], lambda h: 1 - (1 - lex_share(h) * h["agreement"] * union_share(a)) * (1 - h["sem"])),
}


def auc(own, foreign):
    foreign = sorted(foreign)
    import bisect
    wins = 0.0
    for v in own:
        lo = bisect.bisect_left(foreign, v)
        hi = bisect.bisect_right(foreign, v)
        wins += lo + (hi - lo) / 2
    return wins / (len(own) * len(foreign))


def evaluate(qs, f):
    qs = [q for q in qs if q["foreign"] is not None]
    own = [f(q, q["own"]) for q in qs]
    foreign = [f(q, q["foreign"]) for q in qs]
    base = sum(recall10(q, False) for q in qs) / len(qs)
    # today's default: the answer floor on relevance
    today = sum(recall10(q, best(q["own"]["hits"], lambda h: h["rel"]) < 0.01) for q in qs) / len(qs)
    at_floor = sum(recall10(q, s < 0.01) for q, s in zip(qs, own)) / len(qs)
    fe_floor = sum(1 for s in foreign if s < 0.01) / len(qs)
    # oracle: thresholds at every observed value
    best_t, best_fe, best_r = None, 0.0, today
    for t in sorted(set(own + foreign)):
        r = sum(recall10(q, s < t) for q, s in zip(qs, own)) / len(qs)
        if (today - r) * 100 <= 1.0 + 1e-9:
            fe = sum(1 for s in foreign if s < t) / len(qs)
            if fe > best_fe:
                best_t, best_fe, best_r = t, fe, r
    # what 70% foreign abstention costs: the lowest threshold that abstains on 70% of foreign answers
    fs = sorted(foreign)
    t70 = fs[min(len(fs) - 1, math.ceil(0.7 * len(fs)) - 1)]
    t70 = min((v for v in fs if v > t70), default=t70 + 1e-9) if sum(1 for v in fs if v < t70) < 0.7 * len(fs) else t70
    cost70 = (today - sum(recall10(q, v < t70) for q, v in zip(qs, own)) / len(qs)) * 100
    return {
        "cost70": cost70,
        "auc": auc(own, foreign),
        "r10_today": today,
        "r10_nofloor": base,
        "floor_dr": (at_floor - today) * 100,
        "floor_fe": fe_floor,
        "oracle_t": best_t,
        "oracle_fe": best_fe,
        "oracle_dr": (best_r - today) * 100,
    }


def main():
    for path in sys.argv[1:]:
        qs = load(path)
        print(f"## {path} ({len(qs)} queries)")
        print(f"{'variant':48s} {'AUC':>6s} {'floor .01: dR@10':>17s} {'foreign empty':>14s} {'oracle t':>9s} {'oracle fe':>10s} {'dR':>6s} {'R@10 cost of 70%':>17s}")
        for name, f in VARIANTS.items():
            e = evaluate(qs, f)
            t = "-" if e["oracle_t"] is None else f"{e['oracle_t']:.3f}"
            print(f"{name:48s} {e['auc']:6.3f} {e['floor_dr']:+17.1f} {e['floor_fe']*100:13.1f}% {t:>9s} {e['oracle_fe']*100:9.1f}% {e['oracle_dr']:+6.1f} {-e['cost70']:+17.1f}")
        print(f"R@10 today (floor 0.01): {e['r10_today']:.3f}")
        print()


if __name__ == "__main__":
    main()
