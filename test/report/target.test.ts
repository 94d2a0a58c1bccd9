import { describe, expect, it } from 'vitest';
import { renderJUnit, renderMarkdown, renderTable } from '../../src/report/index.js';
import { renderHtml } from '../../src/report/html.js';
import { sampleDocument } from './_doc.js';

describe('the target in every report', () => {
  const agent = sampleDocument();
  agent.meta.provider = 'support-bot';
  agent.meta.model = null;
  agent.meta.target = { name: 'support-bot', kind: 'http' };
  const model = sampleDocument();
  model.meta.target = { name: 'gpt-baseline', kind: 'model' };

  it.each([
    { name: 'table', render: renderTable },
    { name: 'markdown', render: renderMarkdown },
    { name: 'html', render: (d: typeof agent) => renderHtml(d) },
  ])('$name names an agent target and a model target', ({ render }) => {
    expect(render(agent)).toContain('target support-bot (http)');
    expect(render(model)).toContain('gpt-test (openai) · target gpt-baseline (model)');
  });

  it('junit carries it as testsuite properties', () => {
    expect(renderJUnit(agent)).toContain('<property name="target" value="support-bot"/><property name="target.kind" value="http"/>');
    const plain = sampleDocument();
    plain.meta.target = { name: 'openai', kind: 'model' };
    expect(renderJUnit(plain)).not.toContain('name="target"');
  });
});
