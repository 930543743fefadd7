import statistics as st
B=[[list(map(int,l.split())) for l in open(f'/tmp/pcpu/bart_{r}.txt')] for r in (0,1)]
R=[[list(map(int,l.split())) for l in open(f'/tmp/pcpu/rowt_{r}.txt')] for r in (0,1)]
for lastr in (0,1):
    out=[]
    for i in range(len(B[0])):
        if (B[0][i][0] > B[1][i][0]) != (lastr==0): continue
        L, F = lastr, 1-lastr
        T = B[L][i][0]
        bl, bf, rl, rf = B[L][i], B[F][i], R[L][i], R[F][i]
        out.append(dict(
          l_release=(bl[1]-bl[0])/1e3, l_agree=(bl[3]-bl[2])/1e3, l_exit=(bl[6]-T)/1e3, f_exit=(bf[6]-T)/1e3,
          l_rows_enter=(rl[0]-T)/1e3, l_sent=(rl[1]-T)/1e3, l_got=(rl[2]-T)/1e3, l_applied=(rl[3]-T)/1e3, l_ackd=(rl[4]-T)/1e3, l_end=(rl[5]-T)/1e3,
          f_rows_enter=(rf[0]-T)/1e3, f_sent=(rf[1]-T)/1e3, f_got=(rf[2]-T)/1e3, f_applied=(rf[3]-T)/1e3, f_ackd=(rf[4]-T)/1e3, f_end=(rf[5]-T)/1e3,
          l_early=rl[6], l_mine=rl[7], f_early=rf[6], f_mine=rf[7]))
    print(f"rank {lastr} enters last: {len(out)} barriers")
    for k in out[0]:
        print(f"   {k:14s} median {st.median(o[k] for o in out):8.1f}")
