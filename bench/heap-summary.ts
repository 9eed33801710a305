// What holds the heap in a V8 heap snapshot, by constructor and by retainer; with two snapshots, what grew between.
//   NODE_OPTIONS=--max-old-space-size=6000 npx tsx bench/heap-summary.ts after.heapsnapshot [before.heapsnapshot]
// Prints: self size by constructor (and its growth since `before`), then the objects that retain the most (their
// dominator tree: what would be freed with them), each with the path that holds it from the roots.
import fs from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

interface Graph {
  count: number;
  label(i: number): string;
  selfSize: Float64Array;
  /** Edges of node i: firstEdge[i] .. firstEdge[i+1] (indices into `to` / `edgeName` / `weak`). */
  firstEdge: Uint32Array;
  to: Uint32Array;
  edgeName: string[];
  weak: Uint8Array;
}

function load(file: string): Graph {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot;
  const { node_fields, node_types, edge_fields, edge_types } = raw.snapshot.meta;
  const nf = node_fields.length;
  const ef = edge_fields.length;
  const [typeF, nameF, sizeF, countF] = ['type', 'name', 'self_size', 'edge_count'].map((f) => node_fields.indexOf(f));
  const [eTypeF, eNameF, eToF] = ['type', 'name_or_index', 'to_node'].map((f) => edge_fields.indexOf(f));
  const nodeTypes = node_types[0];
  const edgeTypes = edge_types[0];
  const count = raw.nodes.length / nf;
  const selfSize = new Float64Array(count);
  const firstEdge = new Uint32Array(count + 1);
  const edgeCount = raw.edges.length / ef;
  const to = new Uint32Array(edgeCount);
  const weak = new Uint8Array(edgeCount);
  const edgeName: string[] = new Array<string>(edgeCount);
  const labels: string[] = new Array<string>(count);
  let e = 0;
  for (let i = 0; i < count; i++) {
    const base = i * nf;
    selfSize[i] = raw.nodes[base + sizeF];
    const type = nodeTypes[raw.nodes[base + typeF]];
    const name = raw.strings[raw.nodes[base + nameF]];
    labels[i] =
      type === 'object' || type === 'closure' || type === 'native'
        ? `${type === 'object' ? '' : `${type} `}${name.slice(0, 60)}`
        : `(${type})`;
    firstEdge[i] = e;
    const n = raw.nodes[base + countF];
    for (let k = 0; k < n; k++, e++) {
      const eb = e * ef;
      const etype = edgeTypes[raw.edges[eb + eTypeF]];
      const nameOrIndex = raw.edges[eb + eNameF];
      to[e] = raw.edges[eb + eToF] / nf;
      weak[e] = etype === 'weak' || etype === 'shortcut' ? 1 : 0;
      edgeName[e] = etype === 'element' || etype === 'hidden' ? `[${nameOrIndex}]` : raw.strings[nameOrIndex];
    }
  }
  firstEdge[count] = e;
  return { count, label: (i) => labels[i], selfSize, firstEdge, to, edgeName, weak };
}

/** Immediate dominators (Cooper, Harvey, Kennedy), from node 0 (the synthetic root) over strong edges. */
function dominators(g: Graph): { idom: Int32Array; order: Uint32Array } {
  const postIndex = new Int32Array(g.count).fill(-1);
  const order: number[] = [];
  const stack: Array<[number, number]> = [[0, g.firstEdge[0]]];
  const seen = new Uint8Array(g.count);
  seen[0] = 1;
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const [node, edge] = top;
    if (edge < g.firstEdge[node + 1]) {
      top[1]++;
      const next = g.to[edge];
      if (!g.weak[edge] && !seen[next]) {
        seen[next] = 1;
        stack.push([next, g.firstEdge[next]]);
      }
    } else {
      stack.pop();
      postIndex[node] = order.length;
      order.push(node);
    }
  }
  const preds: number[][] = Array.from({ length: g.count }, () => []);
  for (let i = 0; i < g.count; i++)
    if (seen[i]) for (let e = g.firstEdge[i]; e < g.firstEdge[i + 1]; e++) if (!g.weak[e]) preds[g.to[e]].push(i);
  const idom = new Int32Array(g.count).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while (postIndex[a] < postIndex[b]) a = idom[a];
      while (postIndex[b] < postIndex[a]) b = idom[b];
    }
    return a;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let k = order.length - 2; k >= 0; k--) {
      const node = order[k];
      let dom = -1;
      for (const p of preds[node]) {
        if (idom[p] === -1) continue;
        dom = dom === -1 ? p : intersect(p, dom);
      }
      if (dom !== -1 && idom[node] !== dom) {
        idom[node] = dom;
        changed = true;
      }
    }
  }
  return { idom, order: Uint32Array.from(order) };
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

function byLabel(g: Graph): Map<string, { count: number; size: number }> {
  const out = new Map<string, { count: number; size: number }>();
  for (let i = 0; i < g.count; i++) {
    const entry = out.get(g.label(i)) ?? { count: 0, size: 0 };
    entry.count++;
    entry.size += g.selfSize[i];
    out.set(g.label(i), entry);
  }
  return out;
}

const [afterFile, beforeFile] = process.argv.slice(2);
if (!afterFile) throw new Error('usage: heap-summary.ts <snapshot> [<earlier snapshot>]');
const g = load(afterFile);
const total = g.selfSize.reduce((a, b) => a + b, 0);
console.log(`# ${afterFile}: ${g.count} nodes, ${mb(total)} self size in all`);

const now = byLabel(g);
const earlier = beforeFile ? byLabel(load(beforeFile)) : new Map<string, { count: number; size: number }>();
const rows = [...now].map(([label, v]) => {
  const was = earlier.get(label) ?? { count: 0, size: 0 };
  return { label, ...v, dCount: v.count - was.count, dSize: v.size - was.size };
});
rows.sort((a, b) => (beforeFile ? b.dSize - a.dSize : b.size - a.size));
console.log(`\n## Self size by constructor${beforeFile ? ` (growth since ${beforeFile})` : ''}\n`);
for (const r of rows.slice(0, 30))
  console.log(
    `${mb(r.size).padStart(10)} ${String(r.count).padStart(8)}  ${beforeFile ? `${mb(r.dSize).padStart(10)} ${String(r.dCount).padStart(8)}  ` : ''}${r.label}`,
  );

const { idom, order } = dominators(g);
const retained = Float64Array.from(g.selfSize);
for (const node of order) if (node !== 0 && idom[node] >= 0) retained[idom[node]] += retained[node];

/** The edge by which a dominator holds node i (its name), when it holds it directly. */
const edgeTo = (dom: number, node: number) => {
  for (let e = g.firstEdge[dom]; e < g.firstEdge[dom + 1]; e++) if (g.to[e] === node) return `.${g.edgeName[e]} `;
  return '';
};
/** Context variables read better than "system / Context": the names the closure's scope gives its values. */
const children = new Map<number, number[]>();
/** Per node, what it retains in pieces below the threshold, by label (e.g. 10,000 records of a Map). */
const small = new Map<number, Map<string, { count: number; size: number }>>();
for (let i = 1; i < g.count; i++) {
  const dom = idom[i];
  if (dom < 0) continue;
  if (retained[i] < 256 * 1024) {
    if (retained[dom] < 256 * 1024) continue;
    const groups = small.get(dom) ?? new Map<string, { count: number; size: number }>();
    const group = groups.get(g.label(i)) ?? { count: 0, size: 0 };
    group.count++;
    group.size += retained[i];
    groups.set(g.label(i), group);
    small.set(dom, groups);
    continue;
  }
  const list = children.get(dom) ?? [];
  list.push(i);
  children.set(dom, list);
}
console.log(`\n## What retains the heap (dominator tree, 256 KiB or more; a chain of one child is folded)\n`);
const print = (node: number, depth: number, prefix: string) => {
  let line = prefix;
  let at = node;
  // Fold a node that retains (nearly) all of it through one child into one line.
  for (;;) {
    const kids = (children.get(at) ?? []).sort((a, b) => retained[b] - retained[a]);
    if (kids.length === 1 && retained[kids[0]] > 0.9 * retained[at]) {
      line += ` ${edgeTo(at, kids[0])}→ ${g.label(kids[0])}`;
      at = kids[0];
      continue;
    }
    console.log(`${mb(retained[node]).padStart(10)} ${'  '.repeat(depth)}${line}`);
    const pieces = [...(small.get(at) ?? [])].sort((a, b) => b[1].size - a[1].size).slice(0, 3);
    for (const [label, p] of pieces)
      if (p.size >= 128 * 1024)
        console.log(
          `${mb(p.size).padStart(10)} ${'  '.repeat(depth + 1)}${p.count} × ${label} (${Math.round(p.size / p.count)} B each)`,
        );
    if (depth < 6) for (const kid of kids.slice(0, 12)) print(kid, depth + 1, `${edgeTo(at, kid)}${g.label(kid)}`);
    return;
  }
};
for (const top of (children.get(0) ?? []).sort((a, b) => retained[b] - retained[a]).slice(0, 15))
  print(top, 0, g.label(top));
