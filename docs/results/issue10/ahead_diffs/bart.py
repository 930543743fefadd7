import statistics as st
a=[list(map(int,l.split())) for l in open('/tmp/pcpu/bart_0.txt')]
b=[list(map(int,l.split())) for l in open('/tmp/pcpu/bart_1.txt')]
ra=[list(map(int,l.split())) for l in open('/tmp/pcpu/rowt_0.txt')]
rb=[list(map(int,l.split())) for l in open('/tmp/pcpu/rowt_1.txt')]
names=["release","push_ask","agree","push_serve","mid","acquire"]
for who in ("rank0 last","rank1 last"):
    out=[]
    for i,(x,y) in enumerate(zip(a,b)):
        L,F,RL,RF=(x,y,ra[i],rb[i]) if x[0]>y[0] else (y,x,rb[i],ra[i])
        if (who=="rank0 last") != (x[0]>y[0]): continue
        T=L[0]
        out.append([ (L[k+1]-L[k])/1e3 for k in range(6)] + [(F[6]-T)/1e3, (L[6]-T)/1e3, (RL[0]-T)/1e3, (RF[2]-T)/1e3, (F[1]-T)/1e3])
    m=lambda j: st.median(r[j] for r in out)
    print(f"{who} n={len(out)}: last's phases " + ", ".join(f"{names[k]} {m(k):.1f}" for k in range(6)) + f"; first exits {m(6):.1f}, last exits {m(7):.1f} after last entered; last enters rows {m(8):.1f}, first got row {m(9):.1f}; first's release ended {m(10):.1f}")
