/** Numbers and times as people read them: credits in dollars, times in the viewer's zone. */
const money = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 6 });
const count = new Intl.NumberFormat();
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export const formatCredits = (value: number | null | undefined) => (value === null || value === undefined ? '—' : money.format(value));
export const formatCount = (value: number | null | undefined) => (value === null || value === undefined ? '—' : count.format(value));
export const formatTime = (value: string | number | null | undefined) =>
  value === null || value === undefined ? '—' : dateTime.format(typeof value === 'number' ? new Date(value * 1000) : new Date(value));
export const formatMs = (value: number | null | undefined) => (value === null || value === undefined ? '—' : `${count.format(value)} ms`);
/** A day key in the viewer's zone (YYYY-MM-DD). */
export const dayOf = (iso: string) => new Date(iso).toLocaleDateString('en-CA');
/** A workspace member as people read them: name and email (the id when the API has neither). */
export const personOf = (member: { user_id: string; name?: string | null; email?: string }) =>
  member.email ? `${member.name ? `${member.name} ` : ''}<${member.email}>` : member.user_id;
