import { getMetadataStorage } from 'class-validator';

/*
 * class-validator looks a class's rules up again on every validate() (filter, an `instanceof` walk over every decorated
 * class, group by property): the largest frame in every service's profile (issue 17). The rules are fixed once the
 * decorators have run, so the lookup is memoised per class and options; a rule added later clears the memo.
 */
type Storage = ReturnType<typeof getMetadataStorage>;
type Lookup = Storage['getTargetValidationMetadatas'];
type Metadata = ReturnType<Lookup>;
type Grouped = ReturnType<Storage['groupByPropertyName']>;

const MEMOISED = Symbol.for('gw.classValidatorMetadataMemo');

/** Installs the memo on the process-wide storage once (every copy of this module shares it). */
export function memoiseValidationMetadata(storage: Storage = getMetadataStorage()): void {
  const marked = storage as Storage & { [MEMOISED]?: true };
  if (marked[MEMOISED]) return;
  marked[MEMOISED] = true;

  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const addMetadata = storage.addValidationMetadata.bind(storage);
  let byTarget = new Map<unknown, Map<string, Metadata>>();
  let groupedOf = new WeakMap<Metadata, Grouped>();

  storage.addValidationMetadata = (metadata) => {
    addMetadata(metadata);
    byTarget = new Map();
    groupedOf = new WeakMap();
  };
  storage.getTargetValidationMetadatas = (targetConstructor, targetSchema, always, strictGroups, groups) => {
    const key = `${targetSchema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0001') ?? ''}`;
    let forTarget = byTarget.get(targetConstructor);
    if (!forTarget) byTarget.set(targetConstructor, (forTarget = new Map()));
    let metadata = forTarget.get(key);
    if (!metadata) forTarget.set(key, (metadata = lookup(targetConstructor, targetSchema, always, strictGroups, groups)));
    return metadata;
  };
  // The executor groups the (now stable) array it was given on every call too.
  storage.groupByPropertyName = (metadata) => {
    let grouped = groupedOf.get(metadata);
    if (!grouped) groupedOf.set(metadata, (grouped = group(metadata)));
    return grouped;
  };
}
