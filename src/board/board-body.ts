import type http from 'node:http';

/**
 * An action's request body, read with limits: at most MAX_BODY bytes (a larger one,
 * declared or sent, is refused with 413), within BODY_TIMEOUT_MS of the request's
 * headers (a body that trickles in is refused with 408). A refused request is answered,
 * then its connection closed the way a client can read the answer: what it still sends
 * is read and dropped for a moment first (a "lingering close"), since closing a socket
 * with unread data in it resets the connection, and a reset loses the answer on the
 * client's side.
 */
export const MAX_BODY = 1024 * 1024;
/** The page sends a few hundred bytes at once: ten seconds is far more than a local client needs. */
export const BODY_TIMEOUT_MS = 10_000;
/**
 * A refused request's remaining body is read and dropped while it keeps coming: the
 * connection closes once the client has been quiet for LINGER_IDLE_MS, or LINGER_MAX_MS
 * after the answer at most (as nginx's lingering_timeout and lingering_time). A client
 * still pushing megabytes on a busy machine is not cut off mid-send; one that trickles
 * (408) is closed at the cap.
 */
const LINGER_IDLE_MS = 2000;
const LINGER_MAX_MS = 5000;

export class BodyRefused extends Error {
  constructor(
    readonly status: 408 | 413,
    message: string,
  ) {
    super(message);
  }
}

export function readBody(req: http.IncomingMessage, timeoutMs = BODY_TIMEOUT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY) return reject(new BodyRefused(413, `request too large (over ${MAX_BODY} bytes)`));
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
      else {
        done();
        reject(new BodyRefused(413, `request too large (over ${MAX_BODY} bytes)`));
      }
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    const timer = setTimeout(() => {
      done();
      reject(new BodyRefused(408, `request body not received within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/**
 * After a refused request's answer (sent with `Connection: close`): read and drop what
 * the client still sends until it has sent it all, has been quiet for LINGER_IDLE_MS, or
 * LINGER_MAX_MS have passed; then close.
 */
export function closeAfterAnswer(req: http.IncomingMessage, res: http.ServerResponse): void {
  const socket = req.socket;
  const close = () => {
    clearTimeout(idle);
    clearTimeout(cap);
    socket.destroy();
  };
  let idle = setTimeout(close, LINGER_IDLE_MS);
  const cap = setTimeout(close, LINGER_MAX_MS);
  idle.unref();
  cap.unref();
  res.once('finish', () => {
    // The answer is out: the client can read it; what follows is only drained.
    req.once('end', close);
    if (req.complete) close();
  });
  req.on('data', () => {
    clearTimeout(idle);
    idle = setTimeout(close, LINGER_IDLE_MS);
    idle.unref();
  });
  req.resume();
}
