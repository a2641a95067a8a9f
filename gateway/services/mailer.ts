/**
 * Outgoing email (sign-in links). Through SMTP (nodemailer, the standard Node SMTP client) when
 * SMTP_URL is set; otherwise the message is written to the server log, so a local install can sign
 * in without a mail server. That log line is the one place a sign-in link is ever logged.
 */
import nodemailer from 'nodemailer';
import type { Logger } from '../../domain/logger.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

export function createMailer(options: { smtpUrl: string | null; from: string; logger: Logger }): Mailer {
  if (!options.smtpUrl) {
    return {
      async send(mail) {
        options.logger.warn({ mail_to: mail.to, subject: mail.subject, text: mail.text }, 'SMTP_URL is not set: email written to the log instead of sent');
      },
      close() {},
    };
  }
  const transport = nodemailer.createTransport(options.smtpUrl);
  return {
    async send(mail) {
      await transport.sendMail({ from: options.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    },
    close() {
      transport.close();
    },
  };
}
