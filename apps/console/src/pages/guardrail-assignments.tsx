import { Button, Checkbox, Group, Modal, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { api } from '../api';
import { personOf } from '../format';
import { ErrorNote, Loadable, useLoad } from '../ui';
import type { ApiKey, Guardrail, GuardrailKeyAssignment, GuardrailMemberAssignment, Page, WorkspaceMember } from './shapes';

/** Console sessions are keys too; a guardrail is assigned to people's keys, not to them. */
const SESSION_KEY_NAME = 'console session';

interface Choices {
  keys: ApiKey[];
  members: WorkspaceMember[];
  assignedKeys: string[];
  assignedMembers: string[];
}

/** What the guardrail governs: keys of its workspace, and members (all their keys there); saved as assign / unassign of the difference. */
export function GuardrailAssignmentsModal({
  guardrail,
  workspaceId,
  onClose,
}: {
  guardrail: Guardrail;
  workspaceId: string;
  onClose: () => void;
}) {
  const base = `/v1/guardrails/${guardrail.id}/assignments`;
  const state = useLoad(async (): Promise<Choices> => {
    const [keys, members, assignedKeys, assignedMembers] = await Promise.all([
      api<Page<ApiKey>>(`/v1/keys?workspace_id=${workspaceId}`),
      api<Page<WorkspaceMember>>(`/v1/workspaces/${workspaceId}/members?limit=100`),
      api<Page<GuardrailKeyAssignment>>(`${base}/keys?limit=100`),
      api<Page<GuardrailMemberAssignment>>(`${base}/members?limit=100`),
    ]);
    return {
      keys: keys.data.filter((key) => key.name !== SESSION_KEY_NAME),
      members: members.data,
      assignedKeys: assignedKeys.data.map((assignment) => assignment.key_hash),
      assignedMembers: assignedMembers.data.map((assignment) => assignment.user_id),
    };
  }, guardrail.id);
  const [keys, setKeys] = useState<string[]>([]);
  const [members, setMembers] = useState<string[]>([]);
  useEffect(() => {
    if (!state.data) return;
    setKeys(state.data.assignedKeys);
    setMembers(state.data.assignedMembers);
  }, [state.data]);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const save = async (choices: Choices) => {
    setBusy(true);
    setError(null);
    try {
      const change = async (path: string, field: string, before: string[], after: string[]) => {
        const added = after.filter((id) => !before.includes(id));
        const removed = before.filter((id) => !after.includes(id));
        if (added.length) await api(path, { method: 'POST', body: { [field]: added } });
        if (removed.length) await api(`${path}/remove`, { method: 'POST', body: { [field]: removed } });
      };
      await change(`${base}/keys`, 'key_hashes', choices.assignedKeys, keys);
      await change(`${base}/members`, 'member_user_ids', choices.assignedMembers, members);
      onClose();
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal opened onClose={onClose} title={`Assign guardrail ${guardrail.name}`}>
      <Loadable state={state} empty="">
        {(choices) => (
          <Stack>
            {error && <ErrorNote error={error} />}
            <Checkbox.Group label="Keys" description="Requests with these keys follow the guardrail." value={keys} onChange={setKeys}>
              <Stack gap="xs" mt="xs">
                {choices.keys.length === 0 && <Text size="sm">No keys in this workspace.</Text>}
                {choices.keys.map((key) => (
                  <Checkbox key={key.hash} value={key.hash} label={`${key.name} (${key.label})`} />
                ))}
              </Stack>
            </Checkbox.Group>
            <Checkbox.Group
              label="Members"
              description="Every key of these members here follows the guardrail."
              value={members}
              onChange={setMembers}
            >
              <Stack gap="xs" mt="xs">
                {choices.members.map((member) => (
                  <Checkbox key={member.user_id} value={member.user_id} label={`${personOf(member)} (${member.role})`} />
                ))}
              </Stack>
            </Checkbox.Group>
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button loading={busy} onClick={() => void save(choices)}>
                Save assignments
              </Button>
            </Group>
          </Stack>
        )}
      </Loadable>
    </Modal>
  );
}
