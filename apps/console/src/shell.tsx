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
import { logout, type SessionInfo } from './api';
import { onLinkClick, usePath } from './router';
import { canEditCatalog, canManage, useSession } from './session';
import { Center, Loader } from '@mantine/core';

interface Page {
  path: string;
  label: string;
  component: ComponentType;
  /** Who sees it: everyone in a workspace, those who manage it (owners), the operator; workspace pages by default. */
  audience?: 'manage' | 'all';
}

/** Loaded when first shown; the page is named in the import so unused-export checks see it used. */
const lazyPage = (load: () => Promise<ComponentType>) => lazy(() => load().then((component) => ({ default: component })));

const PAGES: Page[] = [
  { path: '/', label: 'Overview', component: lazyPage(() => import('./pages/overview').then((page) => page.OverviewPage)) },
  {
    path: '/generations',
    label: 'Generations',
    component: lazyPage(() => import('./pages/generations').then((page) => page.GenerationsPage)),
  },
  { path: '/keys', label: 'API keys', component: lazyPage(() => import('./pages/keys').then((page) => page.KeysPage)), audience: 'manage' },
  { path: '/presets', label: 'Presets', component: lazyPage(() => import('./pages/presets').then((page) => page.PresetsPage)) },
  {
    path: '/byok',
    label: 'BYOK credentials',
    component: lazyPage(() => import('./pages/byok').then((page) => page.ByokPage)),
    audience: 'manage',
  },
  { path: '/batches', label: 'Batches', component: lazyPage(() => import('./pages/batches').then((page) => page.BatchesPage)) },
  { path: '/credits', label: 'Credits', component: lazyPage(() => import('./pages/credits').then((page) => page.CreditsPage)) },
  {
    path: '/workspaces',
    label: 'Members & budgets',
    component: lazyPage(() => import('./pages/workspaces').then((page) => page.WorkspacesPage)),
    audience: 'manage',
  },
  {
    path: '/guardrails',
    label: 'Guardrails',
    component: lazyPage(() => import('./pages/guardrails').then((page) => page.GuardrailsPage)),
    audience: 'manage',
  },
  {
    path: '/interns',
    label: 'Interns',
    component: lazyPage(() => import('./pages/interns').then((page) => page.InternsPage)),
    audience: 'manage',
  },
  {
    path: '/models',
    label: 'Models & prices',
    component: lazyPage(() => import('./pages/models').then((page) => page.ModelsPage)),
    audience: 'all',
  },
  {
    path: '/audit',
    label: 'Audit log',
    component: lazyPage(() => import('./pages/audit').then((page) => page.AuditPage)),
    audience: 'manage',
  },
  {
    path: '/docs',
    label: 'API reference',
    component: lazyPage(() => import('./pages/api-reference').then((page) => page.ApiReferencePage)),
    audience: 'all',
  },
];

/** The operator has no workspace: only the catalog's pages. */
function pagesFor(session: SessionInfo): Page[] {
  if (canEditCatalog(session)) return PAGES.filter((page) => page.audience === 'all');
  return PAGES.filter((page) => page.audience !== 'manage' || canManage(session));
}

export function Shell({ onSignedOut }: { onSignedOut: () => void }) {
  const session = useSession();
  const path = usePath();
  const [opened, { toggle, close }] = useDisclosure();
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  const pages = pagesFor(session);
  // The root opens the first page one may see (the operator's is the catalog).
  const page =
    pages.find((candidate) => candidate.path === path || (candidate.path !== '/' && path.startsWith(candidate.path + '/'))) ??
    (path === '/' ? pages[0] : undefined);
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
                <Button variant="default" aria-label={`Account of ${session.user.email || session.user.name}`}>
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
