import statistics as st
a=[list(map(int,l.split())) for l in open('/tmp/pcpu/rowt_0.txt')]
b=[list(map(int,l.split())) for l in open('/tmp/pcpu/rowt_1.txt')]
R={0:a,1:b}
for last in (0,1):
    rows=[]
    for x,y in zip(a,b):
        L,F=(x,y) if (x[0]>y[0])==(last==0) else (y,x)
        # L: last arriver rec, F: first
        rows.append(( (L[1]-L[0])/1e3,  # last: enter->sent
                      (F[2]-L[1])/1e3,  # first got after last sent (one-way)
                      (L[2]-L[1])/1e3,  # last: got after its send
                      (L[3]-L[1])/1e3,  # last: send done after sent
                      L[4], F[4], L[5], F[5]))
    rows=[r for r in rows if True]
    print(f"last={last} n={len(rows)}: last enter->isent {st.median(r[0] for r in rows):.1f}; first got after last isent {st.median(r[1] for r in rows):.1f}; last got {st.median(r[2] for r in rows):.1f}; last send done {st.median(r[3] for r in rows):.1f} us; last runs sent med {st.median(r[4] for r in rows)}, recv bytes last {st.median(r[6] for r in rows)} first {st.median(r[7] for r in rows)}")
