/**
 * A whole number in an answer (token counts, timestamps, counts): typed `integer` in the
 * OpenAPI document, which takes the views' TypeScript types as its schemas.
 * @asType integer
 */
export type Integer = number;
