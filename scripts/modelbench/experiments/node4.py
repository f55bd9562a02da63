"""E1 on the post's own Node.js: node4 (Node.js 4.4.7 with the mysql driver 2.11.1, August 2016)
beside today's node (Node.js 20, mysql 2.18.1). It plans no runs: E1a and E1b run node4 and its
mysql-native variant. It judges E1's claims that name one Node.js process again with node4's runs
in node's place, and says how much of the post's gap (Apache+PHP ×9.9 Node.js at -c 20) the
runtime and driver of that year explain."""

import math
import re
from dataclasses import replace

from modelbench.experiments import e1a, e1b
from modelbench.experiments.base import nothing
from modelbench.report.summary import Figure
from modelbench.report.tables import table
from modelbench.report.verdicts import interval_text

KEY = "node4"
TITLE = "E1 on the post's Node.js: Node.js 4 and the drivers of 2016"
IN_DEFAULT = True
TODAY, POST = "node", "node4"
# The claims naming one Node.js process (node4 runs no cluster).
CLAIMS = ("E1a standalone", "E1b cores", "E1b flat: Node.js", "E1b PHP faster",
          "E1b PHP far faster")
NODES = ((TODAY, "Node.js 20, mysql 2.18.1"), (POST, "Node.js 4.4.7, mysql 2.11.1"),
         ("node4-native", "Node.js 4.4.7, mysql-native 0.4.7"))


def plan(ctx):
    return []


def measured(results):
    return results.has(e1a.base(POST)) or results.has(e1b.base(POST, 20))


def claims(results):
    """The claims of CLAIMS with node4 as the real Node.js; the models' sides as they are."""
    if not measured(results):
        return []
    # node4's runs in node's place, node's left out.
    swapped, own = results.stand_ins(lambda run: {TODAY: None, POST: TODAY}.get(
        run.get("server"), run.get("server")))

    def renamed(text):
        return re.sub(rf"\b{TODAY}\b(?![-\w])", POST, text)

    def post_side(side):
        return replace(side, evidence=renamed(side.evidence), cause=renamed(side.cause),
                       bases=tuple(own.get(b, b) for b in side.bases))
    return [replace(claim, key=f"{claim.key} (Node.js 4)", real=post_side(claim.real))
            for claim in e1a.claims(swapped) + e1b.claims(swapped) if claim.key in CLAIMS]


def gap(results, node, c):
    """php ÷ node's requests/s at -c c, within each block."""
    return results.ratio([e1b.base("php", c), e1b.base(node, c)], "requests_per_s")


def explained(today, post):
    """The share of the way from today's gap at -c 20 (php ÷ node) to the post's, on a log scale,
    that the post's runtime and driver (php ÷ node4) explain; None when today's is not below the
    post's. README's section from a summary.json (modelbench.reference) says it too."""
    if e1b.POST_GAP[20] <= today:
        return None
    return math.log(post / today) / math.log(e1b.POST_GAP[20] / today)


def section(results):
    if not measured(results):
        return ""
    rows = [[f"php ÷ {node} ({what})"] + [interval_text(gap(results, node, c), prefix="×")
                                          for c in e1b.CONCURRENCIES] for node, what in NODES]
    rows += [["the post: Apache+PHP ÷ Node.js", "–"] +
             [f"×{e1b.POST_GAP[c]:.1f}" for c in e1b.CONCURRENCIES[1:]]]
    today, post = gap(results, TODAY, 20), gap(results, POST, 20)
    share = ""
    if today and post and (part := explained(today.estimate, post.estimate)) is not None:
        share = (f" At -c 20 today's Node.js leaves Apache+PHP ×{today.estimate:.2f} ahead, the "
                 f"post's runtime and driver ×{post.estimate:.2f}: of the way from today's gap to "
                 f"the post's ×{e1b.POST_GAP[20]:.1f} (on a log scale) they explain "
                 f"{100 * part:.0f} %; the rest is not the runtime or the driver.")
    return "\n".join([
        f"## {TITLE}", "",
        "E1b's requests/s of Apache+PHP over each Node.js, within each block (95 % interval): "
        "today's Node.js, the post's (Node.js 4.4.7 of June 2016 with the mysql driver of that "
        "time) and the post's with its other driver, mysql-native, on the same machine, "
        "database and pages." + share + " E1's claims that name one Node.js process are "
        "judged for node4 too (*Node.js 4* in the verdicts).", "",
        table(["Apache+PHP ÷ Node.js, /html requests/s"] +
              [f"-c {c}" for c in e1b.CONCURRENCIES], rows), "",
    ])


def headline(results):
    return [Figure(f"E1b php ÷ {node} -c 20", e1b.KEY, "php", "requests_per_s_ratio",
                   interval.estimate, interval, against=node, concurrency=20)
            for node, _ in NODES if (interval := gap(results, node, 20))]


plots = pair_rows = nothing
