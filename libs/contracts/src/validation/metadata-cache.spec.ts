import 'reflect-metadata';
import { IsInt, IsString, MaxLength, getMetadataStorage } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { validateDto } from './validate-dto.js';

/*
 * The memo of class-validator's rule lookups must answer exactly what the lookup
 * answers: inherited rules included, and rules of a class decorated after the first validation
 * seen at once.
 */
class Base {
  @IsString()
  name!: string;
}
class Derived extends Base {
  @IsInt()
  count!: number;
}

describe('memoised validation metadata', () => {
  it('keeps enforcing inherited and own rules across calls', async () => {
    for (let round = 0; round < 3; round += 1) {
      await expect(validateDto(Derived, { name: 'a', count: 1 }, 'reject')).resolves.toBeInstanceOf(Derived);
      await expect(validateDto(Derived, { name: 1, count: 1 }, 'reject')).rejects.toThrow(/name: name must be a string/);
      await expect(validateDto(Derived, { name: 'a', count: 'x' }, 'reject')).rejects.toThrow(/count: count must be an integer/);
      await expect(validateDto(Derived, { name: 'a', count: 1, extra: true }, 'reject')).rejects.toThrow(/property extra should not exist/);
    }
  });

  it('returns the same rules as the uncached lookup', () => {
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(Derived, '', false, false);
    expect(storage.getTargetValidationMetadatas(Derived, '', false, false)).toBe(first);
    expect(first.map((rule) => rule.propertyName).sort()).toEqual(['count', 'name']);
  });

  it('sees a rule added after the first validation', async () => {
    class Late {
      @IsString()
      label!: string;
    }
    await expect(validateDto(Late, { label: 'this is long' }, 'reject')).resolves.toBeInstanceOf(Late);
    // A decorator applied now (as a lazily loaded module would) clears the memo.
    MaxLength(3)(Late.prototype, 'label');
    await expect(validateDto(Late, { label: 'this is long' }, 'reject')).rejects.toThrow(
      /label must be shorter than or equal to 3 characters/,
    );
  });
});
