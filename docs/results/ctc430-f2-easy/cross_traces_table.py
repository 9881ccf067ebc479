"""Build the cross-trace table (markdown + compact json) from the per-trace `evolve compare --json` outputs."""
import json, sys, glob, os
src, out_md, out_json = sys.argv[1], sys.argv[2], sys.argv[3]
strategies = sys.argv[4:]
rows = {}
for path in sorted(glob.glob(os.path.join(src, "*.json"))):
    base = os.path.basename(path)[:-5]
    sname, rest = base.split(".", 1)
    name, size = rest.rsplit(".", 1)
    if sname not in strategies:
        continue
    text = open(path).read().strip()
    key = (name, size)
    if not text:
        err = open(path[:-5] + ".err").read().strip().splitlines()
        rows.setdefault(key, {})[sname] = {"error": err[-1] if err else "no output"}
        continue
    r = json.loads(text)["rows"][0]
    rows.setdefault(key, {})[sname] = {k: r[k] for k in ("jobs", "procs", "objective", "objective_easy", "objective_improvement_pct",
                                                         "AWRT1_improvement_pct", "AWRT2_improvement_pct", "UTIL_diff_points", "worse_than_easy")}
lines = ["| trace | size | jobs | procs | " + " | ".join(f"{s}: gain % vs EASY" for s in strategies) + " |",
         "|---|---|---:|---:|" + "---:|" * len(strategies)]
doc = []
for (name, size), per in sorted(rows.items(), key=lambda kv: (kv[0][1] != "real", kv[0][0])):
    any_ok = next((v for v in per.values() if "jobs" in v), None)
    cells = []
    for s in strategies:
        v = per.get(s)
        if v is None:
            cells.append("not run")
        elif "error" in v:
            cells.append("error: " + v["error"].replace("|", "/")[:60])
        else:
            g = v["objective_improvement_pct"]
            cells.append(("**%+.1f** (worse > 5 %%)" % g) if v["worse_than_easy"] else "%+.1f" % g)
    lines.append(f"| {name} | {size} | {any_ok['jobs'] if any_ok else '-'} | {any_ok['procs'] if any_ok else '-'} | " + " | ".join(cells) + " |")
    doc.append({"trace": name, "size": size, **{s: per.get(s) for s in strategies}})
open(out_md, "w").write("\n".join(lines) + "\n")
open(out_json, "w").write(json.dumps(doc, indent=1) + "\n")
print("\n".join(lines))
