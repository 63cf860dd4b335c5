// Preloaded by `mcpscope run` (NODE_OPTIONS=--import …) into the client's Node processes: Node's
// built-in fetch ignores HTTP_PROXY/HTTPS_PROXY before Node 24 (NODE_USE_ENV_PROXY), so the
// global dispatcher becomes undici's EnvHttpProxyAgent, which honours them and NO_PROXY.
// Quiet and harmless when the variables are unset, and never fatal: a client must still start.
try {
  const { EnvHttpProxyAgent, setGlobalDispatcher } = await import('undici');
  setGlobalDispatcher(new EnvHttpProxyAgent());
} catch (err) {
  process.stderr.write(
    `mcpscope: could not route this process's fetch through the proxy (${err && err.message}); its HTTP traffic will bypass mcpscope\n`,
  );
}
