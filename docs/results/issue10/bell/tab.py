import json,sys,collections
d0=sys.argv[1]; V=sys.argv[2].split(',')
tab=collections.OrderedDict()
for f in ["pagefetch","lock","barrier"]:
  for i in (1,2):
    for vi,v in enumerate(V):
      try: d=json.load(open(f"{d0}/{f}_{v}_{i}.json"))
      except Exception as e: continue
      for r in d.get("results",[]):
        p=r.get("params",{})
        key=r["name"]+("["+",".join("%s=%s"%(k,x) for k,x in p.items() if k in('unit_pages','computed_us','computed_us_lo','stride','ranks'))+"]" if p else "")
        tab.setdefault(key,[[None]*len(V),[None]*len(V)])[i-1][vi]=r["median"]
print("%-50s %s"%("row"," ".join(V)))
for k,(a,b) in tab.items():
  f=lambda x: "%6.1f"%x if x is not None else "   -  "
  print("%-50s %s | %s"%(k[:50]," ".join(f(x) for x in a)," ".join(f(x) for x in b)))
