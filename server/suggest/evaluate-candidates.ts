import type { RuleDocument } from '../engine/engine.js';
import type { LoadedRule } from '../rules/rules.js';
import type { SuggestedDocument } from './suggestion-types.js';

const LISTED = 20;
const EXAMPLES_KEPT = 3;
const EXAMPLE_TEXT = 20_000;

/** The engine's verdicts on one candidate over the archive, gathered in constant memory. */
export class CandidateTally {
  tp = 0;
  fp = 0;
  fn = 0;
  readonly wouldAdd: SuggestedDocument[] = [];
  readonly wouldMiss: SuggestedDocument[] = [];
  /** Real documents for the rule's tests: labelled ones it matches, and others it does not (near misses first). */
  readonly matching: RuleDocument[] = [];
  private readonly nearMisses: RuleDocument[] = [];
  private plainMiss: RuleDocument | null = null;

  constructor(
    readonly rule: LoadedRule,
    private readonly terms: readonly string[],
  ) {}

  add(doc: RuleDocument, labelled: boolean, matched: boolean): void {
    const listed = { id: doc.id, title: doc.title };
    if (matched && labelled) {
      this.tp++;
      if (this.matching.length < EXAMPLES_KEPT) this.matching.push(keep(doc));
    } else if (matched) {
      this.fp++;
      if (this.wouldAdd.length < LISTED) this.wouldAdd.push(listed);
    } else if (labelled) {
      this.fn++;
      if (this.wouldMiss.length < LISTED) this.wouldMiss.push(listed);
    } else if (this.nearMisses.length < EXAMPLES_KEPT) {
      // A document that mentions what the rule looks for and still does not match is the more telling test.
      const text = doc.content.toLowerCase();
      if (this.terms.some((t) => text.includes(t))) this.nearMisses.push(keep(doc));
      else this.plainMiss ??= keep(doc);
    }
  }

  /** Documents without the label that the rule does not match, near misses first. */
  get notMatching(): RuleDocument[] {
    return this.plainMiss ? [...this.nearMisses, this.plainMiss] : [...this.nearMisses];
  }

  get precision(): number {
    return this.tp + this.fp === 0 ? 0 : this.tp / (this.tp + this.fp);
  }

  get recall(): number {
    return this.tp + this.fn === 0 ? 0 : this.tp / (this.tp + this.fn);
  }
}

const keep = (doc: RuleDocument): RuleDocument => ({ ...doc, content: doc.content.slice(0, EXAMPLE_TEXT) });
