"""A real SMTP server for the mail channel's tests: aiosmtpd on 127.0.0.1, STARTTLS required with
the certificate given, each message received written to OUT_DIR as <n>.eml. Prints its port on
stdout once it listens; runs until killed.

    smtp.py CERT KEY OUT_DIR
"""
import asyncio
import os
import ssl
import sys

from aiosmtpd.smtp import SMTP


class Save:
    def __init__(self, out):
        self.out = out
        self.n = 0

    async def handle_DATA(self, server, session, envelope):
        self.n += 1
        path = os.path.join(self.out, f"{self.n}.eml")
        with open(path + ".tmp", "wb") as f:
            f.write(b"X-Tls: " + (b"yes" if session.ssl else b"no") + b"\r\n")
            f.write(b"X-Envelope-To: " + ",".join(envelope.rcpt_tos).encode() + b"\r\n")
            f.write(envelope.original_content)
        os.rename(path + ".tmp", path)
        return "250 OK"


def main():
    cert, key, out = sys.argv[1:4]
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    handler = Save(out)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    server = loop.run_until_complete(
        loop.create_server(
            lambda: SMTP(handler, tls_context=context, require_starttls=True, hostname="localhost"),
            host="127.0.0.1",
            port=0,
        )
    )
    print(server.sockets[0].getsockname()[1], flush=True)
    loop.run_forever()


if __name__ == "__main__":
    main()
