/** Reading a password or key from standard input without showing it. */

/** Reads a secret from standard input: typed without echo on a terminal, else the first line of the pipe. */
export async function readSecret(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    let text = '';
    for await (const chunk of stdin) text += String(chunk);
    return text.split(/\r?\n/)[0] ?? '';
  }
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let value = '';
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') {
          done();
          return resolve(value);
        }
        if (ch === '\u0003') {
          done();
          return reject(new Error('cancelled'));
        }
        value = ch === '\u007f' ? value.slice(0, -1) : value + ch;
      }
    };
    const done = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}
