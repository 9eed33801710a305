import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildDataset } from '../../../server/suggest/candidates.js';
import { FeatureIndex, type LearnDocument } from '../../../server/suggest/feature-index.js';
import { learnRules, type LearnOutcome } from '../../../server/suggest/learner.js';
import { whenOf } from '../../../server/suggest/rule-yaml.js';
import { findIdentifiers, isContentWord, stem, tokenize } from '../../../server/suggest/text-features.js';

/** 120 documents: the labelled ones carry "Kraftwerkstraße" and a shared word; the others vary. */
function archive(): LearnDocument[] {
  const others = ['Telekom Rechnung Mobilfunk', 'Allianz Versicherung Beitrag', 'REWE Kassenbon Lebensmittel'];
  return Array.from({ length: 120 }, (_, i) => {
    const positive = i % 6 === 0;
    return {
      id: 1000 + i,
      title: `Dokument ${i}`,
      content: positive
        ? `Stadtwerke Nordhafen Kraftwerkstraße 3 Abrechnung Nummer ${i}`
        : `${others[i % 3]} Nummer ${i} Stadtwerke ${i % 5 === 0 ? 'erwähnt' : ''}`,
      correspondent: null,
      document_type: null,
      positive,
    };
  });
}

function learn(): Promise<LearnOutcome> {
  const index = new FeatureIndex();
  for (const doc of archive()) index.add(doc);
  return learnRules(buildDataset(index, { exclude: new Set() }), 0.95, (train) =>
    buildDataset(index, { exclude: new Set(), train }),
  );
}

describe('the rule learner', () => {
  it('splits text into lower-case words and knows which are worth a condition', () => {
    assert.deepEqual(
      tokenize('Ihre Stromrechnung, bitte!').map((t) => t.word),
      ['ihre', 'stromrechnung', 'bitte'],
    );
    assert.equal(tokenize('Stadtwerke Nordhafen')[1].joined, true);
    assert.equal(tokenize('Stadtwerke, Nordhafen')[1].joined, false);
    assert.equal(isContentWord('und'), false, 'a German stop word');
    assert.equal(isContentWord('the'), false, 'an English stop word');
    assert.equal(isContentWord('rechnung'), true);
    assert.equal(stem('rechnungen', 'de'), stem('rechnung', 'de'));
  });

  it('finds IBANs, VAT ids and customer numbers as printed', () => {
    const found = findIdentifiers('IBAN: DE89 3704 0044 0532 0130 00\nUSt-IdNr. DE123456789\nKundennummer: 4711-0815');
    assert.deepEqual(
      found.map((f) => [f.kind, f.value]),
      [
        ['iban', 'DE89 3704 0044 0532 0130 00'],
        ['vat_id', 'DE123456789'],
        ['customer_number', '4711-0815'],
      ],
    );
  });

  it('learns a condition that separates the labelled documents, the same on every run', async () => {
    const first = await learn();
    assert.ok(first.rules.length >= 1);
    const when = JSON.stringify(whenOf(first.rules[0].clauses));
    assert.match(when, /kraftwerkstraße|nordhafen|abrechnung/, 'a condition only the labelled documents meet');
    assert.ok(first.rules[0].holdout.precision >= 0.95 && first.rules[0].holdout.recall >= 0.9);
    assert.equal(JSON.stringify(await learn()), JSON.stringify(first));
  });

  it("lets only a fold's training documents choose its candidate conditions", () => {
    const index = new FeatureIndex();
    // "Zählerstand" is in the labelled documents of one half only; the other half has "Abrechnung".
    for (const doc of archive())
      index.add({ ...doc, content: doc.positive && doc.id < 1060 ? `${doc.content} Zählerstand` : doc.content });
    const labels = (data: ReturnType<typeof buildDataset>) => data.features.map((f) => f.label).join(', ');
    const whole = buildDataset(index, { exclude: new Set() });
    assert.match(labels(whole), /zählerstand/);
    const fold = buildDataset(index, { exclude: new Set(), train: (d) => index.ids[d] >= 1060 });
    assert.doesNotMatch(labels(fold), /zählerstand/, 'held-out documents pick no condition');
    assert.match(labels(fold), /abrechnung/);
    assert.equal(fold.n, whole.n, 'every document still has its bits, to be judged');
  });
});
