/**
 * ssh's own words when it fails (status 255), turned into one cause a person can act on.
 * The patterns are OpenSSH's messages; anything else is quoted as ssh said it.
 */
const CAUSES: ReadonlyArray<[RegExp, (m: RegExpExecArray, timeoutS: number) => string]> = [
  [
    /REMOTE HOST IDENTIFICATION HAS CHANGED/,
    () => 'host key mismatch: the host key differs from the one in known_hosts (check it before you trust it)',
  ],
  [
    /Host key verification failed|No \S+ host key is known/,
    () => 'host key not verified: known_hosts has no matching key for it (connect once with ssh to check and accept it)',
  ],
  [
    /Permission denied \(([^)]*)\)/,
    (m) => `the key was refused (Permission denied: ${m[1]}); tasks never asks for a password: use ssh-agent or IdentityFile`,
  ],
  [/Could not resolve hostname [^:]*: (.*)/, (m) => `cannot resolve the host name (${m[1]?.trim()})`],
  [/Connection refused/, () => 'connection refused (no SSH server on that port?)'],
  [/timed out|Connection timed out/i, (_m, t) => `no answer within ${t}s (the connect timeout; TASKS_SSH_TIMEOUT changes it)`],
  [/No route to host|Network is unreachable/, (m) => `unreachable (${m[0]})`],
  [/Connection (closed|reset) by/, () => 'the connection was closed while it was set up'],
];

/** The cause of ssh's failure, from what it printed on stderr. */
export function sshFailureCause(stderr: string, connectTimeoutS: number): string {
  for (const [pattern, say] of CAUSES) {
    const m = pattern.exec(stderr);
    if (m) return say(m, connectTimeoutS);
  }
  const last = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .pop();
  return last === undefined ? 'ssh failed and said nothing' : `ssh: ${last}`;
}

/** Lines ssh itself prints when a connection drops after the command started: not the command's. */
export function isSshDropLine(line: string): boolean {
  return /^(client_loop: |Connection to .* closed|Timeout, server .* not responding|packet_write_wait: |Read from remote host |mux_client_|Control socket connect)/.test(
    line,
  );
}
