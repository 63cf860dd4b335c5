/**
 * Noticing that a client hung up while mcpscope is busy with something else for its connection
 * (resolving a CONNECT's host, making a certificate, connecting to the server). A socket that is
 * not being read never says that its peer closed: its FIN waits in the kernel, the socket sits in
 * CLOSE_WAIT and its file descriptor stays open until something reads it (issue 26, finding 3).
 * So the socket is read meanwhile — what the client sends is kept, not lost, up to a bound past
 * which reading pauses — and put back (unshift) when the watch ends, in the order it came.
 */
import type { Duplex } from 'node:stream';

/** What a watched socket may bring before reading pauses (a client waiting for an answer sends little or nothing). */
const KEEP_BYTES = 64 * 1024;

/**
 * Reads `socket` until the returned function is called, calling `closed` once if the client ends
 * or the socket closes first. The returned function stops watching and puts back what was read.
 */
export function watchForClose(socket: Duplex, closed: () => void): () => void {
  const kept: Buffer[] = [];
  let bytes = 0;
  let watching = true;
  const onData = (chunk: Buffer) => {
    kept.push(chunk);
    bytes += chunk.length;
    if (bytes >= KEEP_BYTES) socket.pause();
  };
  const onGone = () => {
    if (!watching) return;
    stop();
    closed();
  };
  const stop = () => {
    watching = false;
    socket.off('data', onData);
    socket.off('end', onGone);
    socket.off('close', onGone);
  };
  socket.on('data', onData);
  socket.once('end', onGone);
  socket.once('close', onGone);
  // A socket paused before (a look at its first bytes leaves it so) does not flow by a 'data' listener alone.
  socket.resume();
  return () => {
    if (!watching) return;
    stop();
    socket.pause();
    if (kept.length > 0) socket.unshift(kept.length === 1 ? kept[0] : Buffer.concat(kept));
  };
}
