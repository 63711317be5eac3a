import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { EMBEDDINGS_MAX_INPUTS, EmbeddingsRequestDto } from './embeddings-request.dto.js';

const problems = (body: object) =>
  validateSync(plainToInstance(EmbeddingsRequestDto, body), { forbidUnknownValues: true }).map((error) => error.property);

describe('embeddings body bounds', () => {
  it.each([
    ['a string', 'The food was delicious and the waiter...'],
    ['an array of strings', ['first', 'second']],
    ['token ids', [1820, 25, 1]],
    ['token arrays', [[1820, 25], [9906]]],
    ['the largest batch', Array.from({ length: EMBEDDINGS_MAX_INPUTS }, () => 'x')],
  ])('accepts input as %s', (_, input) => {
    expect(problems({ model: 'sim/text-embedding-3-small', input })).toEqual([]);
  });

  it('accepts the optional fields and unmodelled provider fields', () => {
    expect(
      problems({
        model: 'm',
        input: 'x',
        encoding_format: 'base64',
        dimensions: 256,
        user: 'u-1',
        provider: { order: ['a'] },
        input_type: 'query',
      }),
    ).toEqual([]);
  });

  it.each([
    ['model', { input: 'x' }],
    ['input', { model: 'm' }],
    ['input', { model: 'm', input: '' }],
    ['input', { model: 'm', input: [] }],
    ['input', { model: 'm', input: ['ok', ''] }],
    ['input', { model: 'm', input: ['text', [1, 2]] }],
    ['input', { model: 'm', input: [1.5, 2] }],
    ['input', { model: 'm', input: [-1] }],
    ['input', { model: 'm', input: Array.from({ length: EMBEDDINGS_MAX_INPUTS + 1 }, () => 'x') }],
    ['input', { model: 'm', input: { text: 'x' } }],
    ['encoding_format', { model: 'm', input: 'x', encoding_format: 'int8' }],
    ['dimensions', { model: 'm', input: 'x', dimensions: 0 }],
    ['dimensions', { model: 'm', input: 'x', dimensions: 1.5 }],
    ['user', { model: 'm', input: 'x', user: 'u'.repeat(257) }],
  ])('refuses a bad %s', (property, body) => {
    expect(problems(body)).toContain(property);
  });
});
