import { useEffect, useState, type MouseEvent } from 'react';

/** A few pages need no routing library: paths under /console/, the History API, and links that use it. */
const BASE = '/console';

function currentPath(): string {
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : '/';
  return path === '' ? '/' : path;
}

export function navigate(path: string): void {
  window.history.pushState(null, '', BASE + path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** The path and query, re-rendering on every navigation (a query change alone opens a detail view). */
function useLocation(): { path: string; search: string } {
  const [location, setLocation] = useState(() => ({ path: currentPath(), search: window.location.search }));
  useEffect(() => {
    const update = () => setLocation({ path: currentPath(), search: window.location.search });
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return location;
}

export function usePath(): string {
  return useLocation().path;
}

export function useQuery(): URLSearchParams {
  return new URLSearchParams(useLocation().search);
}

export function onLinkClick(path: string) {
  return (event: MouseEvent) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(path);
  };
}
