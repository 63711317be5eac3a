import { useEffect, useState, type MouseEvent, type ReactNode } from 'react';

/** A few pages need no routing library: paths under /console/, the History API, and links that use it. */
const BASE = '/console';

export function currentPath(): string {
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : '/';
  return path === '' ? '/' : path;
}

export function navigate(path: string): void {
  window.history.pushState(null, '', BASE + path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return path;
}

export function useQuery(): URLSearchParams {
  usePath();
  return new URLSearchParams(window.location.search);
}

export function onLinkClick(path: string) {
  return (event: MouseEvent) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(path);
  };
}

export function Link({ to, children }: { to: string; children: ReactNode }) {
  return (
    <a href={BASE + to} onClick={onLinkClick(to)}>
      {children}
    </a>
  );
}
