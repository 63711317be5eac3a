/**
 * Every NATS subject in the system. Renaming one is a breaking change between services
 * that may run different versions during a rolling deploy.
 */
export const SUBJECTS = {
  management: {
    health: 'management.health',
    authResolve: 'management.auth.resolve',
    keysList: 'management.keys.list',
    keysGet: 'management.keys.get',
  },
  inference: {
    health: 'inference.health',
    chatCreate: 'inference.chat.create',
    modelsList: 'inference.models.list',
  },
  batch: {
    health: 'batch.health',
  },
  internSigning: {
    health: 'interns.health',
  },
} as const;

export const EVENTS = {
  usageRecorded: 'events.usage.recorded',
  keysChanged: 'events.keys.changed',
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
