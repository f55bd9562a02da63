#!/usr/bin/python3
"""The medians and ranges of a rounds.sh output, and the targets of docs/cost-measurement.md,
each ratio formed within a round and reported as the median of the rounds [lowest-highest],
held or missed on the median.

usage: tests/tools/cost/summary.py OUT.tsv
"""
import statistics
import sys

NEW = "-c 200 -n 20000"
KEEP = "-k -c 100 -n 50000"
HTML = "-c 20 -n 3000"


def rounds_of(path):
    """[{(label, case): µs}] per round; case is the ab flags of /hello or /html, or 'floor'."""
    rounds = []
    with open(path) as f:
        for line in f:
            if line.startswith("# round"):
                rounds.append({})
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 9 or not rounds:
                continue
            label, target, flags = fields[0], fields[1], fields[2]
            if int(fields[4]) > 0.002 * int(fields[3]):
                continue  # not valid: more than 0.2 % of the requests failed
            case = "floor" if flags.startswith("--standalone") else f"{target} {flags}"
            rounds[-1][(label, case)] = float(fields[6])
    return rounds


def spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return None, "-"
    median = statistics.median(values)
    if len(values) == 1:
        return median, f"{median:.3g}"
    return median, f"{median:.3g} [{min(values):.3g}-{max(values):.3g}]"


def per_round(rounds, formula):
    values = []
    for figures in rounds:
        try:
            values.append(formula(figures))
        except KeyError:
            values.append(None)
    return values


def main():
    rounds = rounds_of(sys.argv[1])
    labels = sorted({label for figures in rounds for label, _ in figures})
    variants = sorted({label.split("-")[0] for label in labels
                       if "-" in label and not label.startswith("floor")})
    print(f"{len(rounds)} rounds\n\nµs per request (floors: per iteration), median [range]")
    for case in (f"/hello {NEW}", f"/hello {KEEP}", f"/html {HTML}", "floor"):
        print(f"\n{case}")
        for label in labels:
            _, text = spread(per_round(rounds, lambda r, l=label, c=case: r[(l, c)]))
            if text != "-":
                print(f"  {label:24} {text}")
    print("\ntargets (ratios within each round)")

    def ratio(label, case, reference):
        return lambda r: r[(label, case)] / r[(reference, case)]

    def added(label, floor, reference, reference_floor):
        # over its own floor, against what Apache+PHP adds over its CLI loop: µs
        return lambda r: ((r[(label, f"/html {HTML}")] - r[(floor, "floor")]) -
                          (r[(reference, f"/html {HTML}")] - r[(reference_floor, "floor")]))

    for variant in variants:
        checks = [
            (f"{variant}-blocking /hello new conn / apache", ratio(f"{variant}-blocking",
                                                                   f"/hello {NEW}", "apache"), 1),
            (f"{variant}-blocking /hello new conn / nginx", ratio(f"{variant}-blocking",
                                                                  f"/hello {NEW}", "nginx"), 2),
            (f"{variant}-prefork /hello new conn / nginx", ratio(f"{variant}-prefork",
                                                                 f"/hello {NEW}", "nginx"), 1.5),
            (f"{variant}-async /hello new conn / nginx", ratio(f"{variant}-async",
                                                               f"/hello {NEW}", "nginx"), 1),
            (f"{variant}-cluster /hello new conn / nginx", ratio(f"{variant}-cluster",
                                                                 f"/hello {NEW}", "nginx"), None),
            (f"{variant}-async /hello keep-alive / nginx", ratio(f"{variant}-async",
                                                                 f"/hello {KEEP}", "nginx"), 1),
            (f"{variant}-cluster /hello keep-alive / nginx", ratio(f"{variant}-cluster",
                                                                   f"/hello {KEEP}", "nginx"), None),
            (f"{variant}-blocking /hello keep-alive / nginx", ratio(f"{variant}-blocking",
                                                                    f"/hello {KEEP}", "nginx"), 2),
            (f"{variant}-prefork /hello keep-alive / nginx", ratio(f"{variant}-prefork",
                                                                   f"/hello {KEEP}", "nginx"), 2),
        ]
        for model, floor in (("blocking", "floor-blocking"), ("prefork", "floor-blocking"),
                             ("async", "floor-async"), ("cluster", "floor-async")):
            checks.append((f"{variant}-{model} /html: added over its floor minus Apache's (µs)",
                           added(f"{variant}-{model}", f"{variant}-{floor}", "apache",
                                 "floor-php"), 0))
        for name, formula, target in checks:
            median, text = spread(per_round(rounds, formula))
            if median is None:
                continue
            verdict = "" if target is None else ("held" if median <= target else "missed")
            bound = "" if target is None else f"(target <= {target})"
            print(f"  {name:58} {text:28} {bound:15} {verdict}")


if __name__ == "__main__":
    main()
