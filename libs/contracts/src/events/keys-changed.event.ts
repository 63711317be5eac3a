import { ArrayMaxSize, IsArray, Matches } from 'class-validator';
import { KEY_HASH_PATTERN } from '../principal.js';

/** Published by management whenever a key's state changes, so gateways drop cached auth. */
export class KeysChangedEvent {
  @IsArray()
  @ArrayMaxSize(1000)
  @Matches(KEY_HASH_PATTERN, { each: true })
  keyHashes!: string[];
}
