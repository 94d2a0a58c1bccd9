import copy, json, os, random, re, sys, types
BFCL = os.environ['BFCL_DIR']  # a checkout's berkeley-function-call-leaderboard/
sys.path.insert(0, BFCL)
class Cfg:  underscore_to_dot = True
class M(dict):
    def __getitem__(self, k): return Cfg()
mc = types.ModuleType('mc'); mc.MODEL_CONFIG_MAPPING = M(); sys.modules['bfcl_eval.constants.model_config'] = mc
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
from bfcl_eval.constants.enums import Language
random.seed(7)
D = os.path.join(BFCL, 'bfcl_eval', 'data')
OUT = sys.argv[1] if len(sys.argv) > 1 else 'crosscheck.jsonl'
def name(n): return re.sub(r'[^a-zA-Z0-9_-]', '_', n)[:64]
out = open(OUT, 'w')
stats = {}
for cat in ['simple_python','multiple','parallel','parallel_multiple','live_simple','live_multiple','live_parallel','live_parallel_multiple']:
    qs = [json.loads(l) for l in open(f'{D}/BFCL_v4_{cat}.json')]
    ans = {a['id']: a for a in (json.loads(l) for l in open(f'{D}/possible_answer/BFCL_v4_{cat}.json'))}
    for q in qs:
        gt = ans[q['id']]['ground_truth']
        fns = {f['name']: f for f in q['function']}
        def canon():
            calls = []
            for c in gt:
                fname, args = next(iter(c.items()))
                a = {}
                for k, vals in args.items():
                    nz = [v for v in vals if v != '']
                    if nz: a[k] = nz[0]
                calls.append([name(fname), a])
            return calls
        variants = [('canonical', canon())]
        if len(gt) > 1:
            variants.append(('reversed', list(reversed(canon()))))
        c = canon()
        # perturbations on the first call
        fname0 = next(iter(gt[0]))
        props = fns.get(fname0, {}).get('parameters', {}).get('properties', {})
        a0 = c[0][1]
        strs = [k for k, v in a0.items() if isinstance(v, str) and v]
        if strs:
            v = copy.deepcopy(c); k = strs[0]; v[0][1][k] = v[0][1][k].upper().replace(' ', '  ') + ''; variants.append(('str-case', v))
            v = copy.deepcopy(c); v[0][1][k] = v[0][1][k] + ' extra words'; variants.append(('str-wrong', v))
        ints = [k for k, v in a0.items() if isinstance(v, int) and not isinstance(v, bool)]
        if ints:
            v = copy.deepcopy(c); k = ints[0]; v[0][1][k] = str(v[0][1][k]); variants.append(('int-as-str', v))
            v = copy.deepcopy(c); v[0][1][k] = v[0][1][k] + 1; variants.append(('int-wrong', v))
        floats = [k for k, v in a0.items() if isinstance(v, float) and float(v).is_integer()]
        if floats:
            v = copy.deepcopy(c); k = floats[0]; v[0][1][k] = int(v[0][1][k]); variants.append(('float-as-int', v))
        req = fns.get(fname0, {}).get('parameters', {}).get('required', [])
        if req and req[0] in a0:
            v = copy.deepcopy(c); del v[0][1][req[0]]; variants.append(('drop-required', v))
        v = copy.deepcopy(c); v[0][1]['zz_extra'] = 1; variants.append(('extra-arg', v))
        opt = [k for k, vals in gt[0][fname0].items() if '' in vals and k not in a0 and k in props]
        if opt:
            t = props[opt[0]].get('type')
            val = {'string': 'zzz', 'integer': 987, 'float': 9.5, 'boolean': True}.get(t)
            if val is not None:
                v = copy.deepcopy(c); v[0][1][opt[0]] = val; variants.append(('optional-wrong', v))
        v = copy.deepcopy(c); v[0][0] = v[0][0] + '_x'; variants.append(('wrong-name', v))
        # dict-valued arguments: the canonical dict takes the first acceptable value of each key
        dicts = [k for k, vals in gt[0][fname0].items() if any(isinstance(x, dict) for x in vals)]
        if dicts:
            k = dicts[0]
            answer_dict = next(x for x in gt[0][fname0][k] if isinstance(x, dict))
            d = {}
            for kk, vv in answer_dict.items():
                nz = [x for x in vv if x != ''] if isinstance(vv, list) else []
                if nz: d[kk] = nz[0]
            v = copy.deepcopy(c); v[0][1][k] = d; variants.append(('dict-canonical', v))
            strs_d = [kk for kk, vv in d.items() if isinstance(vv, str) and vv]
            if strs_d:
                v = copy.deepcopy(c); dd = dict(d); dd[strs_d[0]] = dd[strs_d[0]].upper(); v[0][1][k] = dd; variants.append(('dict-str-case', v))
            v = copy.deepcopy(c); dd = dict(d); dd['zz_extra'] = 1; v[0][1][k] = dd; variants.append(('dict-extra-key', v))
            if d:
                v = copy.deepcopy(c); dd = dict(d); dd.pop(next(iter(dd))); v[0][1][k] = dd; variants.append(('dict-drop-key', v))
        for vname, calls in variants:
            model_output = [{n: a} for n, a in calls]
            try:
                r = ast_checker(q['function'], model_output, gt, Language.PYTHON, cat, 'gpt-4o')
                valid = bool(r['valid'])
            except Exception as e:
                valid = None
            out.write(json.dumps({'id': q['id'], 'cat': cat, 'variant': vname, 'calls': calls, 'bfcl': valid}) + '\n')
            stats[(cat, valid)] = stats.get((cat, valid), 0) + 1
print(stats)
