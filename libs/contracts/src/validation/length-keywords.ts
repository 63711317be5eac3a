import type { KeywordDefinition } from 'ajv';
import { maxLength, minLength } from 'class-validator';

/*
 * Ajv keywords that count a string's length as class-validator's `@MinLength` / `@MaxLength`
 * do (validator.js: a surrogate pair or a variation selector counts once), for the schemas
 * compiled from DTO rules: JSON Schema's own minLength/maxLength count code
 * points, which decides differently on some strings.
 */
export const CV_MIN_LENGTH = 'cvMinLength';
export const CV_MAX_LENGTH = 'cvMaxLength';

export const CLASS_VALIDATOR_LENGTH_KEYWORDS: KeywordDefinition[] = [
  {
    keyword: CV_MIN_LENGTH,
    type: 'string',
    schemaType: 'number',
    validate: (min: number, value: string) => minLength(value, min),
  },
  {
    keyword: CV_MAX_LENGTH,
    type: 'string',
    schemaType: 'number',
    // Within the limit in UTF-16 units is within it for validator.js too (it counts some pairs once).
    validate: (max: number, value: string) => value.length <= max || maxLength(value, max),
  },
];
