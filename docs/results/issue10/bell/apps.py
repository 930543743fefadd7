import subprocess,json,sys,os,statistics,time
apps=sys.argv[1].split(','); reps=int(sys.argv[2]); V=sys.argv[3:]
root=os.path.abspath(os.path.join(os.path.dirname(__file__), '../../../..'))
res={}
env0=dict(os.environ, LOOM_CLUSTER_CPUS='1')
for i in range(reps):
  for a in apps:
    for v in V:
      env=dict(env0)
      for kv in v.split():
        k,x=kv.split('='); env[k]=x
      out=subprocess.run([root+'/scripts/cluster.sh','run','2','1','--',root+f'/build/apps/{a}_loom'],capture_output=True,text=True,env=env,timeout=300).stdout
      t=None
      for l in out.splitlines():
        if l.startswith('RESULT '):
          d=json.loads(l[7:]); t=d['time'] if d.get('valid',True) else None
      res.setdefault(a,{}).setdefault(v,[]).append(t)
  print(time.strftime('%T'),'rep',i,flush=True)
  json.dump(res,open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'apps_h2r1_cpus1.json'),'w'))
for a in apps:
  base=statistics.median([x for x in res[a][V[0]] if x])
  print(a, '  '.join('%s: %.4f (%.3f-%.3f) x%.2f'%(v, statistics.median([x for x in res[a][v] if x]), min(x for x in res[a][v] if x), max(x for x in res[a][v] if x), statistics.median([x for x in res[a][v] if x])/base) for v in V))
