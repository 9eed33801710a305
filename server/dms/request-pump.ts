// Keeps a dms's workers busy while the consumer works. A generator that sends its next request only
// when the consumer asks for the next answer leaves the dms idle whenever the consumer is slower for a moment:
// on the slow profile the four requests of a round finished together and sat unread while the service evaluated
// the first of them, and the next round went out only then. Here an answer that arrives frees its slot at once.

/**
 * One request of a read: the rows it asks for (what its answer will hold in memory) and how to send it. `send`
 * may call `answered` once the dms began its answer (the body still to read and parse): its slot is free then.
 */
export interface PumpedRequest<T> {
  rows: number;
  send: (answered: () => void) => Promise<T>;
}

/**
 * The answers of `requests`, in order: at most `inFlight` unanswered at any moment (until the dms began an answer,
 * or it failed), and at most `heldRows` rows sent and not yet taken by the consumer (the answer it works on counts
 * until it asks for the next one), which bounds the documents held in memory; one request always may be. With
 * `heldRows` 0 a request goes out only when the consumer asks for the next answer. A failed request fails the read
 * where its answer is taken.
 */
export async function* pumpRequests<T>(
  requests: Iterator<PumpedRequest<T>>,
  inFlight: number,
  heldRows: number,
): AsyncGenerator<T> {
  const slots = Math.max(1, Math.floor(inFlight));
  const untaken: Array<{ rows: number; answer: Promise<T> }> = [];
  let untakenRows = 0;
  let unanswered = 0;
  let exhausted = false;
  let next: IteratorResult<PumpedRequest<T>> | null = null;
  const fill = () => {
    while (!exhausted && unanswered < slots) {
      next ??= requests.next();
      if (next.done) {
        exhausted = true;
        return;
      }
      const { rows, send } = next.value;
      if (untaken.length > 0 && untakenRows + rows > heldRows) return;
      next = null;
      unanswered++;
      untakenRows += rows;
      let freed = false;
      const free = () => {
        if (freed) return;
        freed = true;
        unanswered--;
        fill();
      };
      const answer = send(free).finally(free);
      // Its failure is reported where the consumer takes it, not as an unhandled rejection meanwhile.
      answer.catch(() => undefined);
      untaken.push({ rows, answer });
    }
  };
  try {
    fill();
    while (untaken.length > 0) {
      const answer = await untaken[0].answer;
      yield answer;
      untakenRows -= (untaken.shift() as { rows: number }).rows;
      fill();
    }
  } finally {
    // A consumer that stops early: no further requests (those under way finish unread).
    exhausted = true;
  }
}
