/**
 * A real SMTP server (smtp-server) on a free loopback port that keeps every mail it receives, for tests
 * that follow an emailed link: start the stack with `SMTP_URL: catcher.smtpUrl`, then read the mail
 * sent to an address with `mailTo`. Used by test/gateway/sign-in.test.ts and the team pages' tests.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface MailCatcher {
  smtp: SMTPServer;
  smtpUrl: string;
  /** Every raw message received, in order. */
  mails: string[];
}

export async function startMailCatcher(): Promise<MailCatcher> {
  const mails: string[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  return { smtp, mails, smtpUrl: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}` };
}

export function stopMailCatcher(catcher: Pick<MailCatcher, 'smtp'>): Promise<void> {
  return new Promise<void>((resolve) => catcher.smtp.close(() => resolve()));
}

/** Decodes quoted-printable soft breaks and escapes (nodemailer wraps long lines). */
export function decodeMail(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The first mail sent to `to`, decoded; polled with a deadline, null when none arrived. */
export async function mailTo(catcher: Pick<MailCatcher, 'mails'>, to: string): Promise<string | null> {
  const deadline = Date.now() + 5000;
  const addressed = new RegExp(`^To: .*${to.replace(/[.+]/g, '\\$&')}`, 'mi');
  for (;;) {
    const found = catcher.mails.map(decodeMail).find((mail) => addressed.test(mail));
    if (found || Date.now() > deadline) return found ?? null;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
