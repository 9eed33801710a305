/** A fault the simulator plays on matching requests (before auth, as a proxy in front of Paperless would). */
export interface FaultSpec {
  /**
   * Which requests: a string matches the route pattern (`/api/documents/{id}/`), the path, or `METHOD pattern`;
   * a RegExp is tested against `METHOD /path/`. Absent = every API request.
   */
  route?: string | RegExp;
  /** `hold`: matching requests wait until the test calls `release` (a wait that no machine's speed decides). */
  kind: 'latency' | 'hold' | 'status' | 'rate_limit' | 'drop';
  /** For `status` (default 500). */
  status?: number;
  /** For `latency`: delay before answering normally. */
  ms?: number;
  /** For `rate_limit`: seconds in Retry-After (default 1). */
  retryAfter?: number;
  /** How many matching requests it hits; default unlimited. */
  times?: number;
  /**
   * For `hold` and `latency`: the request is applied first and only its answer waits (Paperless committed the
   * write, the answer has not left yet: where a kill of the client leaves it not knowing).
   */
  after?: boolean;
  /** Only requests whose query has these parameters, each matching its pattern (`{ page: /^[2-9]/ }`: pages after the first). */
  params?: Record<string, RegExp>;
}

export interface ActiveFault extends FaultSpec {
  id: number;
  /** Requests this fault has hit so far. */
  hits: number;
}

export interface FaultInjector {
  inject(spec: FaultSpec): ActiveFault;
  remove(id: number): void;
  /** Lets every request a `hold` fault keeps waiting go on, and removes the fault. */
  release(id: number): void;
  clear(): void;
  list(): ActiveFault[];
  /** The first fault matching this request, counted as used; latency faults stack with one terminal fault. */
  take(
    method: string,
    path: string,
    pattern: string,
    params?: URLSearchParams,
  ): { latencyMs: number; held: Promise<void>[]; terminal: ActiveFault | null; answerAfter: Promise<void>[] };
}

const KINDS = new Set(['latency', 'hold', 'status', 'rate_limit', 'drop']);

/** Validates a fault coming from the control endpoint (JSON: `route` may be "/regex/flags"). */
export function parseFaultSpec(body: unknown): FaultSpec {
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (!KINDS.has(String(input.kind))) throw new Error('kind must be one of latency, status, rate_limit, drop');
  let route: string | RegExp | undefined;
  if (typeof input.route === 'string') {
    const regex = /^\/(.+)\/([a-z]*)$/.exec(input.route);
    route = regex ? new RegExp(regex[1], regex[2]) : input.route;
  }
  const num = (key: string) => (typeof input[key] === 'number' ? input[key] : undefined);
  return {
    route,
    kind: input.kind as FaultSpec['kind'],
    status: num('status'),
    ms: num('ms'),
    retryAfter: num('retryAfter'),
    times: num('times'),
    after: input.after === true,
  };
}

export function createFaultInjector(): FaultInjector {
  let faults: ActiveFault[] = [];
  let nextId = 1;
  const gates = new Map<number, { opened: Promise<void>; open: () => void }>();

  const matches = (fault: ActiveFault, method: string, path: string, pattern: string, params?: URLSearchParams) => {
    for (const [name, value] of Object.entries(fault.params ?? {}))
      if (!value.test(params?.get(name) ?? '')) return false;
    const route = fault.route;
    if (route === undefined) return true;
    if (route instanceof RegExp) return route.test(`${method} ${path}`);
    return route === pattern || route === path || route === `${method} ${pattern}` || route === `${method} ${path}`;
  };

  const use = (fault: ActiveFault) => {
    fault.hits++;
    if (fault.times !== undefined && fault.hits >= fault.times) faults = faults.filter((f) => f !== fault);
  };

  return {
    inject(spec) {
      if (!KINDS.has(spec.kind)) throw new Error(`unknown fault kind "${spec.kind}"`);
      const fault: ActiveFault = { ...spec, id: nextId++, hits: 0 };
      faults.push(fault);
      if (spec.kind === 'hold') {
        let open!: () => void;
        gates.set(fault.id, { opened: new Promise<void>((resolve) => (open = resolve)), open });
      }
      return fault;
    },
    remove(id) {
      faults = faults.filter((f) => f.id !== id);
    },
    release(id) {
      faults = faults.filter((f) => f.id !== id);
      gates.get(id)?.open();
      gates.delete(id);
    },
    clear() {
      faults = [];
      for (const gate of gates.values()) gate.open();
      gates.clear();
    },
    list: () => faults.map((f) => ({ ...f })),
    take(method, path, pattern, params) {
      let latencyMs = 0;
      const held: Promise<void>[] = [];
      let terminal: ActiveFault | null = null;
      const answerAfter: Promise<void>[] = [];
      for (const fault of [...faults]) {
        if (!matches(fault, method, path, pattern, params)) continue;
        if (fault.after && (fault.kind === 'latency' || fault.kind === 'hold')) {
          const gate = gates.get(fault.id);
          answerAfter.push(
            fault.kind === 'hold' && gate
              ? gate.opened
              : new Promise((resolve) => setTimeout(resolve, fault.ms ?? 1000)),
          );
          use(fault);
        } else if (fault.kind === 'latency') {
          latencyMs += fault.ms ?? 1000;
          use(fault);
        } else if (fault.kind === 'hold') {
          const gate = gates.get(fault.id);
          if (gate) held.push(gate.opened);
          use(fault);
        } else if (!terminal) {
          terminal = fault;
          use(fault);
        }
      }
      return { latencyMs, held, terminal, answerAfter };
    },
  };
}
