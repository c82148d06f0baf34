#!/usr/bin/env python3
# Computes the expected values of trace/tests/golden_test.cpp from the shared traces, independently of
# xpuperf: plain Python over the JSON, timestamps converted to integer ns with Decimal (exact).
# Usage: python3 trace/tests/golden_values.py   (reads ../shared/data/traces/)
# Independent computation of the golden values (definitions from docs/TRACES.md), straight from JSON.
import json, gzip, sys, collections, math
from decimal import Decimal, ROUND_HALF_UP
import os
T=os.environ.get('XPUPERF_TRACE_DIR', os.path.join(os.path.dirname(__file__), '../../../shared/data/traces')) + '/'
def load(f):
    op = gzip.open if f.endswith('.gz') else open
    return json.load(op(T+f,'rt'), parse_float=Decimal)
def ns(x): return int((Decimal(x)*1000).to_integral_value(ROUND_HALF_UP))
def cls(e):
    if e['cat'] in ('gpu_memcpy','gpu_memset'): return 'MEMORY'
    n=e['name']; l=n.lower()
    if l.startswith(('nccl','rccl','hccl')) or 'ncclKernel' in n or 'ncclDevKernel' in n: return 'COMM'
    if l.startswith(('memcpy','memset','dma')): return 'MEMORY'
    return 'COMPUTE'
def union(iv):
    iv=sorted(iv); tot=0; cur=None
    for b,e in iv:
        if cur is None or b>cur[1]:
            if cur: tot+=cur[1]-cur[0]
            cur=[b,e]
        else: cur[1]=max(cur[1],e)
    if cur: tot+=cur[1]-cur[0]
    return tot
for f in ['call_stack__backward_thread.json','critical_path__cuda_event_sync__event_sync_trace.json.gz',
          'critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz',
          'trace_compare__base__base.json.gz','trace_compare__test__test.json.gz']:
    d=load(f); ev=[e for e in d['traceEvents'] if e.get('ph')=='X']
    gpu=[e for e in ev if e.get('cat') in ('kernel','gpu_memcpy','gpu_memset')]
    print('==',f)
    if gpu:
        b=min(ns(e['ts']) for e in gpu); en=max(ns(e['ts'])+ns(e.get('dur',0)) for e in gpu)
        busy=union([(ns(e['ts']),ns(e['ts'])+ns(e['dur'])) for e in gpu])
        comp=union([(ns(e['ts']),ns(e['ts'])+ns(e['dur'])) for e in gpu if cls(e)=='COMPUTE'])
        print(' temporal window',en-b,'busy',busy,'compute',comp,'noncompute',busy-comp,'idle',en-b-busy)
    cnt=collections.Counter(cls(e) for e in gpu); print(' classes',dict(cnt), {c:sum(ns(e['dur']) for e in gpu if cls(e)==c) for c in cnt})
    launch={e['args']['correlation']:e for e in ev if e.get('cat') in ('cuda_runtime','cuda_driver') and 'correlation' in e.get('args',{})}
    streams=collections.defaultdict(list)
    for e in gpu: streams[(e['args'].get('device',-1),e['args'].get('stream',-1))].append(e)
    for k,ops in sorted(streams.items()):
        ops.sort(key=lambda e:(ns(e['ts']),-ns(e['dur'])))
        prev=None; hw=kw=ot=0; gaps=0
        for o in ops:
            t=ns(o['ts'])
            if prev is not None and t>prev:
                g=t-prev; gaps+=1
                L=launch.get(o['args'].get('correlation'))
                if L is not None and ns(L['ts'])>prev: hw+=g
                elif g<30000: kw+=g
                else: ot+=g
            end=t+ns(o['dur']); prev=end if prev is None else max(prev,end)
        # queue
        steps=[]
        for o in ops:
            L=launch.get(o['args'].get('correlation'))
            if L is None: continue
            steps.append((ns(L['ts']),1)); steps.append((ns(o['ts'])+ns(o['dur']),-1))
        steps.sort(key=lambda s:(s[0],s[1])); q=0; mx=0; at2=0
        for i,(t,dl) in enumerate(steps):
            q+=dl; mx=max(mx,q)
            if i+1<len(steps) and q>=2: at2+=steps[i+1][0]-t
        print(' stream',k,'ops',len(ops),'host_wait',hw,'kernel_wait',kw,'other',ot,'gaps',gaps,'queue max',mx,'time>=2',at2)
    delays=[]
    for o in gpu:
        L=launch.get(o['args'].get('correlation'))
        if L is None: continue
        delays.append(max(0, ns(o['ts'])-(ns(L['ts'])+ns(L['dur']))))
    if delays:
        s=sorted(delays); p50=s[max(1,math.ceil(0.5*len(s)))-1]
        print(' launch matched',len(delays),'of',len(gpu),'delay total',sum(delays),'max',max(delays),'min',min(delays),'p50',p50)
    short=0
    for o in gpu:
        L=launch.get(o['args'].get('correlation'))
        if L is None or o['cat']!='kernel': continue
        if ns(o['dur'])<ns(L['dur'])<=50000: short+=1
    print(' short kernels',short)
a=load('trace_compare__base__base.json.gz'); b=load('trace_compare__test__test.json.gz')
def tot(d):
    r=collections.defaultdict(lambda:[0,0])
    for e in d['traceEvents']:
        if e.get('ph')!='X': continue
        k='cpu_op' if e.get('cat')=='cpu_op' else 'gpu' if e.get('cat') in ('kernel','gpu_memcpy','gpu_memset') else None
        if not k: continue
        r[(k,e['name'])][0]+=1; r[(k,e['name'])][1]+=ns(e['dur'])
    return r
ta,tb=tot(a),tot(b)
print('diff added',sorted(k for k in tb if k not in ta),'removed',sorted(k for k in ta if k not in tb),
      'changed',sorted(k for k in ta if k in tb and ta[k]!=tb[k]),'unchanged',sum(1 for k in ta if k in tb and ta[k]==tb[k]))
rows=json.load(gzip.open(T+'memory_analysis__memory_timeline.raw.gz','rt'))
live=[0]*8; tot_=0; peak=0; atpk=None; pts=None
for ts,act,by,cat in rows:
    c=cat if 0<=cat<8 else 7
    live[c]+=by; tot_+=by
    if tot_>peak: peak=tot_; atpk=list(live); pts=ts
print('memtl rows',len(rows),'peak',peak,'peak_ts',pts,'final',tot_,'at_peak',atpk)
