import {
  ActionIcon,
  AppShell,
  Burger,
  Button,
  Group,
  Menu,
  NavLink,
  ScrollArea,
  Text,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { lazy, Suspense, type ComponentType } from 'react';
import { logout } from './api';
import { onLinkClick, usePath } from './router';
import { canManage, useSession } from './session';
import { Center, Loader } from '@mantine/core';

interface Page {
  path: string;
  label: string;
  component: ComponentType;
  /** Shown to those whose session manages the workspace (owners). */
  manage?: boolean;
}

const lazyPage = (load: () => Promise<Record<string, ComponentType>>, name: string) =>
  lazy(() => load().then((module) => ({ default: module[name]! })));

const PAGES: Page[] = [
  { path: '/', label: 'Overview', component: lazyPage(() => import('./pages/overview'), 'OverviewPage') },
  { path: '/generations', label: 'Generations', component: lazyPage(() => import('./pages/generations'), 'GenerationsPage') },
  { path: '/keys', label: 'API keys', component: lazyPage(() => import('./pages/keys'), 'KeysPage'), manage: true },
  { path: '/presets', label: 'Presets', component: lazyPage(() => import('./pages/presets'), 'PresetsPage') },
  { path: '/byok', label: 'BYOK credentials', component: lazyPage(() => import('./pages/byok'), 'ByokPage'), manage: true },
  { path: '/batches', label: 'Batches', component: lazyPage(() => import('./pages/batches'), 'BatchesPage') },
  { path: '/credits', label: 'Credits', component: lazyPage(() => import('./pages/credits'), 'CreditsPage') },
  {
    path: '/workspaces',
    label: 'Members & budgets',
    component: lazyPage(() => import('./pages/workspaces'), 'WorkspacesPage'),
    manage: true,
  },
  { path: '/guardrails', label: 'Guardrails', component: lazyPage(() => import('./pages/guardrails'), 'GuardrailsPage'), manage: true },
];

export function Shell({ onSignedOut }: { onSignedOut: () => void }) {
  const session = useSession();
  const path = usePath();
  const [opened, { toggle, close }] = useDisclosure();
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  const pages = PAGES.filter((page) => !page.manage || canManage(session));
  const page = pages.find((candidate) => candidate.path === path || (candidate.path !== '/' && path.startsWith(candidate.path + '/')));
  const Current = page?.component;
  const signOut = async (everywhere: boolean) => {
    await logout(everywhere);
    onSignedOut();
  };
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 230, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Text fw={700}>Gateway console</Text>
          </Group>
          <Group gap="xs" wrap="nowrap">
            <ActionIcon
              variant="default"
              size="lg"
              onClick={() => setColorScheme(scheme === 'dark' ? 'light' : 'dark')}
              aria-label={scheme === 'dark' ? 'Use light mode' : 'Use dark mode'}
            >
              {scheme === 'dark' ? '☀' : '☾'}
            </ActionIcon>
            <Menu position="bottom-end">
              <Menu.Target>
                <Button variant="default" aria-label={`Account of ${session.user.email}`}>
                  <Text size="sm" truncate maw={{ base: 80, sm: 160 }}>
                    {session.user.name}
                  </Text>
                </Button>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Label>
                  {session.user.email} · {session.user.role}
                </Menu.Label>
                <Menu.Item onClick={() => void signOut(false)}>Sign out</Menu.Item>
                <Menu.Item color="red" onClick={() => void signOut(true)}>
                  Sign out everywhere
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Console pages">
        <ScrollArea>
          {pages.map((item) => (
            <NavLink
              key={item.path}
              href={`/console${item.path}`}
              label={item.label}
              active={item === page}
              aria-current={item === page ? 'page' : undefined}
              onClick={(event) => {
                onLinkClick(item.path)(event);
                close();
              }}
            />
          ))}
        </ScrollArea>
      </AppShell.Navbar>
      <AppShell.Main>
        <main>
          <Suspense
            fallback={
              <Center py="xl" role="status">
                <Loader aria-label="Loading the page" />
              </Center>
            }
          >
            {Current ? <Current /> : <Text role="alert">This page does not exist or your role cannot open it.</Text>}
          </Suspense>
        </main>
      </AppShell.Main>
    </AppShell>
  );
}
