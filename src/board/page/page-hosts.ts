import type { HostStateView } from '../board-protocol.js';
import { byId, h } from './page-dom.js';
import { cutLine } from './page-text.js';

/**
 * A board of several hosts (tasks board -H): a banner for each host that is not reached,
 * or that stopped answering, with its cause, since when, and when it last answered. Its lists are taken off the page while it is down (the
 * board shows nothing as live that is not); the board tries it again by itself, and the
 * banner goes when it is back.
 */
export function showHosts(hosts: readonly HostStateView[] | undefined): void {
  const banner = byId('hosts-down');
  const out = (hosts ?? []).filter((x) => x.state !== 'live');
  banner.hidden = out.length === 0;
  banner.replaceChildren(
    ...out.map((x) =>
      h(
        'div',
        { class: `host-down ${x.state}`, 'data-host': x.label },
        h(
          'strong',
          {},
          x.state === 'down' ? `Host ${x.label} is ${x.silent ? 'not answering' : 'not reached'}` : `Connecting to host ${x.label}…`,
        ),
        x.state === 'down'
          ? ` since ${time(x.since)}: ${cutLine((x.message ?? 'no answer').replace(/^host \S+: /, ''), 220)}.${
              x.answeredAt === undefined ? '' : ` It last answered at ${time(x.answeredAt)}.`
            } Its lists are not shown; the board tries it again by itself.`
          : x.message
            ? ` (last time: ${cutLine(x.message.replace(/^host \S+: /, ''), 200)})`
            : '',
      ),
    ),
  );
}

const time = (ms: number): string => new Date(ms).toLocaleTimeString();

/** A host's heading in the sidebar: its name and whether it is reached. */
export function hostHeading(x: HostStateView, lists: number): HTMLElement {
  const down = x.silent ? 'not answering' : 'not reached';
  const words = x.state === 'live' ? `${lists} list${lists === 1 ? '' : 's'}` : x.state === 'down' ? down : 'connecting…';
  return h(
    'h2',
    { class: `host-name ${x.state}`, title: x.message ?? `host ${x.label}` },
    h('span', { class: `dot ${x.state === 'live' ? 'live' : x.state === 'down' ? 'crashed' : 'unknown'}` }),
    h('span', { class: 'host-label' }, cutLine(x.label, 40)),
    h('span', { class: 'host-state' }, words),
  );
}
