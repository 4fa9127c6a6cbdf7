#!/usr/bin/env bash
# Start PostgreSQL and Redis when they are not already answering (tests use real connections).
set -u
if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
  for _ in $(seq 1 30); do redis-cli ping >/dev/null 2>&1 && break; sleep 1; done
fi

# The browser tests drive Debian's Chromium (never a tool's own browser download).
if ! command -v chromium >/dev/null 2>&1; then
  echo "installing Debian's chromium for the browser tests"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null \
    || echo "could not install chromium: the browser tests will fail; install Debian's chromium package"
fi
# The IMAP poller's tests run Debian's dovecot on a loopback port of their own (never a system service).
if ! command -v dovecot >/dev/null 2>&1 && [ ! -x /usr/sbin/dovecot ]; then
  echo "installing Debian's dovecot-imapd for the IMAP poller tests"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dovecot-imapd) >/dev/null \
    || echo "could not install dovecot-imapd: the IMAP tests will fail; install Debian's dovecot-imapd package"
fi
pg_isready -h 127.0.0.1 -p 5432 && redis-cli -h 127.0.0.1 -p 6379 ping
