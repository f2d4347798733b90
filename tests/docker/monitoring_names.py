#!/usr/bin/python3
"""The metric names the operator's kit (docker/monitoring/) queries, against a live server's scrape.

  monitoring_names.py SCRAPE DASHBOARD_JSON RULES_YML RULES_TEST_YML
  monitoring_names.py --selftest
  monitoring_names.py --as-rules DASHBOARD_JSON OUT_YML

Takes every PromQL expression of the Grafana dashboard (every panel's targets, in rows too, and the
templating variables' label_values() queries), of the Prometheus rule file (every rule's expr) and of
its unit tests (every input series and promql_expr_test), pulls out the metric names they name, and
fails naming each one that SCRAPE (the text of a server's /metrics) does not have; a histogram's
_bucket, _sum and _count are its family's. Prometheus's own `up` is allowed: Prometheus makes it.
An expression in which no name is found fails too (the extraction would be broken), as does a kit
with no expressions. Exit codes: 0 every name is exported; 1 a name is not, or an expression yields
none; 2 bad usage or a file that does not parse.

--as-rules writes the dashboard's panel expressions as Prometheus recording rules, Grafana's variables
replaced by values ($__rate_interval by 1m, the others by .*), for `promtool check rules` to parse.
"""
import json
import re
import sys

import yaml

# Series Prometheus itself makes for every target: not the server's to export.
PROMETHEUS_MADE = {"up"}
KEYWORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
            "group_left", "group_right", "inf", "nan", "atan2"}
IDENT = r"[a-zA-Z_:][a-zA-Z0-9_:]*"


def names_in(expr):
    """The metric names a PromQL expression (Grafana's $variables allowed) selects, sorted."""
    label_values = re.fullmatch(r"\s*label_values\((.*),\s*" + IDENT + r"\s*\)\s*", expr, re.S)
    if label_values:  # Grafana's variable query: its first argument is a series selector
        expr = label_values.group(1)
    s = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|`[^`]*`', '""', expr)  # strings
    s = re.sub(r"\{[^{}]*\}", " ", s)                                            # label matchers
    s = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)", " ", s)  # label lists
    s = re.sub(r"\[[^\[\]]*\]", " ", s)                                          # ranges and subqueries
    s = re.sub(r"\boffset\s+-?[0-9a-z]+", " ", s)                                # offsets
    s = re.sub(r"\$\{?\w+\}?", " ", s)                                           # Grafana variables
    s = re.sub(r"(?<![\w:])(?:0x[0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)(?![\w:])", " ", s)  # numbers
    if re.search(r'[{}\[\]"\'`$]', s.replace('""', " ")):
        raise ValueError(f"cannot read the expression (left over: {s.strip()!r}): {expr}")
    found = set()
    for m in re.finditer(IDENT, s):
        word = m.group(0)
        if re.match(r"\s*\(", s[m.end():]) or word.lower() in KEYWORDS:
            continue  # a function or an aggregation, or an operator's keyword
        found.add(word)
    return sorted(found)


def dashboard_expressions(path):
    with open(path) as f:
        dashboard = json.load(f)
    out = []

    def panels(items):
        for p in items:
            yield p
            yield from panels(p.get("panels", []))
    for p in panels(dashboard.get("panels", [])):
        for t in p.get("targets", []):
            if "expr" in t:
                out.append((f"{path}: panel {p.get('title')!r} target {t.get('refId')}", t["expr"]))
    for v in dashboard.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            q = v["query"]["query"] if isinstance(v.get("query"), dict) else v.get("query")
            out.append((f"{path}: variable {v.get('name')}", q))
    return out


def rules_expressions(path):
    with open(path) as f:
        rules = yaml.safe_load(f)
    return [(f"{path}: group {g['name']} rule {r.get('alert') or r.get('record')}", r["expr"])
            for g in rules["groups"] for r in g["rules"]]


def rules_test_expressions(path):
    with open(path) as f:
        tests = yaml.safe_load(f)
    out = []
    for i, t in enumerate(tests["tests"]):
        out += [(f"{path}: test {i + 1} input series", s["series"]) for s in t.get("input_series", [])]
        out += [(f"{path}: test {i + 1} promql_expr_test", e["expr"]) for e in t.get("promql_expr_test", [])]
    return out


def scraped_names(text):
    """Every sample name in an exposition, and a histogram's or summary's family name for its parts."""
    names = set()
    for line in text.splitlines():
        m = re.match(r"# TYPE (" + IDENT + r") (histogram|summary)", line)
        if m:
            names.add(m.group(1))
        elif line and not line.startswith("#"):
            names.add(re.match(IDENT, line).group(0))
    return names


def selftest():
    cases = {
        'histogram_quantile(0.99, sum by (job, le) (rate(a_bucket{le="0.5",x=~"$x"}[$__rate_interval])))': ["a_bucket"],
        "changes(t[1m]) == bool 0 unless on (job, instance) d == 1": ["d", "t"],
        'sum(rate(x_total{r="a{b}"}[5m] offset 1h)) by (r) / ignoring(r) group_left y': ["x_total", "y"],
        "1e3 * max_over_time(m:rec[1h:5m]) > 0x10 and inf > nan": ["m:rec"],
        'label_values(foothold_tick_rate_hz{job=~"$job"}, instance)': ["foothold_tick_rate_hz"],
        'foo{job="foothold",le="+Inf"}': ["foo"],
    }
    for expr, want in cases.items():
        got = names_in(expr)
        if got != want:
            print(f"monitoring_names selftest: FAIL {expr!r}: {got}, not {want}", file=sys.stderr)
            return 1
    broken = 'rate(x{job="a"[5m])'  # an unclosed matcher: refused, not read as names
    try:
        names_in(broken)
        print(f"monitoring_names selftest: FAIL {broken!r} was read", file=sys.stderr)
        return 1
    except ValueError:
        pass
    print(f"monitoring_names selftest: ok ({len(cases)} expressions)")
    return 0


def as_rules(dashboard, out):
    """The dashboard's panel expressions as a rule file of recording rules (what promtool can parse)."""
    rules = []
    for i, (_, expr) in enumerate(dashboard_expressions(dashboard)):
        if expr.lstrip().startswith("label_values("):
            continue  # a variable's query: Grafana's, not PromQL
        expr = re.sub(r"\$\{?__rate_interval\}?", "1m", expr)
        rules.append({"record": f"dashboard:expression_{i}", "expr": re.sub(r"\$\{?\w+\}?", ".*", expr)})
    with open(out, "w") as f:
        yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}, f)
    print(f"monitoring_names: {len(rules)} dashboard expressions written to {out}")
    return 0


def main(argv):
    if argv[1:] == ["--selftest"]:
        return selftest()
    if len(argv) == 4 and argv[1] == "--as-rules":
        return as_rules(argv[2], argv[3])
    if len(argv) != 5:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    scrape, dashboard, rules, rules_test = argv[1:]
    try:
        with open(scrape) as f:
            exported = scraped_names(f.read())
        expressions = dashboard_expressions(dashboard) + rules_expressions(rules) + rules_test_expressions(rules_test)
    except (OSError, ValueError, KeyError, TypeError, yaml.YAMLError) as e:
        print(f"monitoring_names: {e}", file=sys.stderr)
        return 2
    if not expressions:
        print("monitoring_names: FAIL no PromQL expressions found in the kit", file=sys.stderr)
        return 1
    problems, queried = [], set()
    for where, expr in expressions:
        try:
            names = names_in(expr)
        except ValueError as e:
            problems.append(f"{where}: {e}")
            continue
        if not names:
            problems.append(f"{where}: no metric name found in {expr!r}")
        for name in names:
            queried.add(name)
            if name not in exported and name not in PROMETHEUS_MADE:
                problems.append(f"{where}: {name} is not in the server's /metrics")
    for p in problems:
        print(f"monitoring_names: FAIL {p}", file=sys.stderr)
    if problems:
        return 1
    print(f"monitoring_names: ok: {len(expressions)} expressions name {len(queried)} metrics, "
          f"every one in the scrape ({len(exported)} names)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
