import { EVENT_DECLARATIONS, REQUEST_DECLARATIONS } from './catalog/message-routes.js';

type SubjectsOf<Group> = { readonly [Name in keyof Group]: Group[Name] extends { subject: infer Subject } ? Subject : never };

function subjectsOf<Group extends Record<string, { subject: string }>>(group: Group): SubjectsOf<Group> {
  return Object.fromEntries(Object.entries(group).map(([name, declaration]) => [name, declaration.subject])) as SubjectsOf<Group>;
}

/**
 * Every NATS subject in the system, by serving service, read off its declaration
 * (catalog/message-routes.ts). Renaming one is a breaking change between services
 * that may run different versions during a rolling deploy.
 */
export const SUBJECTS = {
  management: subjectsOf(REQUEST_DECLARATIONS.management),
  inference: subjectsOf(REQUEST_DECLARATIONS.inference),
  batch: subjectsOf(REQUEST_DECLARATIONS.batch),
  internSigning: subjectsOf(REQUEST_DECLARATIONS.internSigning),
};

export const EVENTS = subjectsOf(EVENT_DECLARATIONS);

/** JetStream names. Durable consumers are per service, so each counts every event once. */
export const JETSTREAM = {
  usageStream: 'USAGE',
  usageSubjects: ['events.usage.>'],
  consumers: {
    managementUsage: 'management-usage',
    inferenceGenerations: 'inference-generations',
    inferenceRequestFailures: 'inference-request-failures',
    batchUsage: 'batch-usage',
  },
  /** Messages a consumer gave up on after its delivery limit, on `dead.<stream>.<consumer>`. */
  deadLetterStream: 'DEAD_LETTERS',
  deadLetterSubjectPrefix: 'dead',
} as const;

/** Queue group per service: replicas of one service share its subjects. */
export const QUEUE_GROUPS = {
  management: 'management',
  inference: 'inference',
  batch: 'batch',
  internSigning: 'intern-signing',
} as const;

export type ServiceName = keyof typeof QUEUE_GROUPS;

export const HEALTH_SUBJECTS: Record<ServiceName, string> = {
  management: SUBJECTS.management.health,
  inference: SUBJECTS.inference.health,
  batch: SUBJECTS.batch.health,
  internSigning: SUBJECTS.internSigning.health,
};
