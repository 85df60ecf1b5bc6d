#!/usr/bin/env python3
"""strata's column of the vLLM campaign table in docs/serving.md, from the paper report.

Every strata number of that section (each run's E2E / TTFT / ITL error, the mean absolute errors
with their medians, the counts within tolerance) is computed here from the report block of
docs/paper_report.md (rows validation.serving.campaign.<run>.*; the block itself is checked
against the program by CTest docs.paper_report), never typed by hand. The peers' columns are
published data (docs/serving.md names the record) and are read, not written.

    scripts/campaign_table.py --check    # exit 1 if docs/serving.md differs (CTest docs.campaign_table)
    scripts/campaign_table.py --update   # rewrite the strata cells and lines
"""
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "docs" / "paper_report.md"
PAGE = ROOT / "docs" / "serving.md"
METRICS = ("e2e_mean_s", "ttft_mean_s", "itl_mean_s")
MINUS = "\u2212"


def report_rows():
    """id -> (value, paper, status) of the report block's campaign rows."""
    rows, inside = {}, False
    for line in REPORT.read_text(encoding="utf-8").splitlines():
        if line == "<!-- paper_report:begin -->":
            inside = True
            continue
        if line == "<!-- paper_report:end -->":
            break
        if not inside or not line.startswith("| validation.serving.campaign."):
            continue
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        rows[cells[0]] = (float(cells[2]), float(cells[4]), cells[-1])
    return rows


def signed(x):
    s = f"{x:+.1f}"
    return s.replace("-", MINUS)


def pct(x):
    return f"{x:.1f} %"


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in ("--check", "--update"):
        sys.exit("usage: campaign_table.py --check|--update")
    rows = report_rows()
    runs = {}  # run number -> {metric: relative error}
    served = [0, 0]  # stages within tolerance, stages
    within = {m: [0, 0] for m in METRICS}
    for rid, (value, paper, status) in rows.items():
        m = re.fullmatch(r"validation\.serving\.campaign\.(\d+)-[^.]+\.(.+)", rid)
        if not m:
            continue
        run, metric = int(m.group(1)), m.group(2)
        if metric in METRICS:
            runs.setdefault(run, {})[metric] = (value - paper) / paper
            within[metric][1] += 1
            within[metric][0] += status == "pass"
        elif metric.endswith("served_over_offered"):
            served[1] += 1
            served[0] += status == "pass"
    if not runs:
        sys.exit(f"{REPORT}: no validation.serving.campaign rows in the report block")

    text = PAGE.read_text(encoding="utf-8")
    start = text.index("### The public vLLM v0.15.1 campaign, run by run")
    end = text.index("\nLeft out, and why:", start)
    section = text[start:end].split("\n")
    peers_rows = {}  # run -> has the peers' record (not the row 27 of dashes)
    aic_runs = set()
    out = []
    for line in section:
        m = re.match(r"\| (\d+) ([^|]+)\| ([^|]+)\|(.*)$", line)
        if m and int(m.group(1)) in runs:
            run = int(m.group(1))
            e = runs[run]
            cell = " / ".join(signed(100 * e[k]) for k in METRICS)
            line = f"| {run} {m.group(2)}| {cell} |{m.group(4)}"
            rest = [c.strip() for c in m.group(4).strip().strip("|").split("|")]
            peers_rows[run] = rest[0] != "\u2014"
            if len(rest) > 2 and rest[2] != "\u2014":
                aic_runs.add(run)
        out.append(line)
    section = "\n".join(out)

    compared = [r for r, has in peers_rows.items() if has]

    def summary(sel):
        errs = {k: [abs(runs[r][k]) * 100 for r in sel] for k in METRICS}
        return {k: (statistics.fmean(v), statistics.median(v)) for k, v in errs.items()}

    s = summary(compared)
    short = all(runs[r]["ttft_mean_s"] < 0 for r in compared)
    line = (f"| **strata** (nothing fitted) | {len(compared)} | **{pct(s['e2e_mean_s'][0])}** (median "
            f"{pct(s['e2e_mean_s'][1])}) | **{pct(s['ttft_mean_s'][0])}** (median {pct(s['ttft_mean_s'][1])}"
            f"{', always short' if short else ''}) | **{pct(s['itl_mean_s'][0])}** (median {pct(s['itl_mean_s'][1])}) |")
    section = re.sub(r"^\| \*\*strata\*\* \(nothing fitted\) \|.*$", lambda _: line, section, count=1, flags=re.M)
    a = summary(sorted(aic_runs))
    line = (f"| strata on AIConfigurator's {len(aic_runs)} runs | {len(aic_runs)} | {pct(a['e2e_mean_s'][0])} | "
            f"{pct(a['ttft_mean_s'][0])} | {pct(a['itl_mean_s'][0])} |")
    section = re.sub(r"^\| strata on AIConfigurator's \d+ runs \|.*$", lambda _: line, section, count=1, flags=re.M)
    n = len(runs)
    checks = (f"Checks: E2E {within['e2e_mean_s'][0]} of {n} within \u00b115 %, ITL {within['itl_mean_s'][0]} of {n} "
              f"within \u00b110 %, TTFT {within['ttft_mean_s'][0]} of {n} within \u00b125 %, served /\n"
              f"offered {served[0]} of {served[1]} stages within \u00b15 %.")
    section = re.sub(r"Checks: E2E \d+ of \d+ within \u00b115 %, ITL \d+ of \d+ within \u00b110 %, TTFT \d+ of \d+ "
                     r"within \u00b125 %, served /\noffered \d+ of \d+ stages within [^.]*\.", lambda _: checks, section, count=1)
    new = text[:start] + section + text[end:]
    if mode == "--update":
        if new != text:
            PAGE.write_text(new, encoding="utf-8")
        print(f"{PAGE.relative_to(ROOT)}: campaign table written from the report ({n} runs)")
        return
    if new != text:
        import difflib
        sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True), "docs/serving.md",
                                                   "from the report"))
        sys.exit("docs/serving.md's campaign table differs from the report (above): run scripts/campaign_table.py --update")
    print(f"docs/serving.md's campaign table equals the report ({n} runs)")


if __name__ == "__main__":
    main()
