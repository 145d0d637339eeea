"""test/clients/python/harness.py - what the Python client checks share: the command line, the
check counter (one line per check, "N passed, N failed"), assertions, and a recorder of the last
HTTP exchange (both clients send through the requests library) for the checks that look at the
wire."""
import argparse
import os
import sys
import threading
import traceback

import requests

DEV_ACCOUNT = 'devstoreaccount1'
DEV_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='


def parse_args(what):
    p = argparse.ArgumentParser(description=what)
    p.add_argument('--port', type=int, required=True, help="the gateway's port on 127.0.0.1")
    p.add_argument('--crash-read', help='table,pk,rk: one point read whose owning node was just killed')
    return p.parse_args()


class Fail(Exception):
    pass


_counts = {'passed': 0, 'failed': 0}


def check(name):
    """Decorator: run the function now as one check."""
    def run(fn):
        result = {}

        def target():
            try:
                fn()
            except Fail as e:
                result['msg'] = str(e)
            except Exception as e:  # an unexpected exception fails the check, with where it came from
                tb = traceback.extract_tb(e.__traceback__)[-1]
                result['msg'] = '%s: %s (%s:%d)' % (type(e).__name__, str(e).split('\n')[0][:300], os.path.basename(tb.filename), tb.lineno)
        t = threading.Thread(target=target, daemon=True)
        t.start()
        t.join(60)
        if t.is_alive():
            result['msg'] = 'timed out after 60 s'
        if 'msg' in result:
            _counts['failed'] += 1
            print('FAIL %s: %s' % (name, result['msg'].replace('\n', '\\n')), flush=True)
        else:
            _counts['passed'] += 1
            print('ok   %s' % name, flush=True)
        return fn
    return run


def summary():
    print('%d passed, %d failed' % (_counts['passed'], _counts['failed']), flush=True)
    sys.exit(1 if _counts['failed'] else 0)


def run(args, crash_read, groups):
    """A client program's run: one point read after a node crash (--crash-read), or each group of
    checks in turn; then the counts."""
    if args.crash_read:
        crash_read(args.crash_read)
    else:
        for group in groups:
            group()
    summary()


def ok(cond, what):
    if not cond:
        raise Fail(what)


def eq(got, want, what):
    if got != want:
        raise Fail('%s: got %r, want %r' % (what, got, want))


def raises(fn, exc_type=Exception):
    """fn() raises exc_type: the exception."""
    try:
        fn()
    except exc_type as e:
        return e
    raise Fail('%s did not raise %s' % (getattr(fn, '__name__', fn), exc_type.__name__))


class Recorder:
    """Keeps the last request and response that went through requests.Session.send."""
    last = None

    @classmethod
    def install(cls):
        orig = requests.Session.send

        def send(session, request, **kw):
            resp = orig(session, request, **kw)
            cls.last = (request, resp)
            return resp
        requests.Session.send = send

    @classmethod
    def response(cls):
        return cls.last[1] if cls.last else None

    @classmethod
    def request(cls):
        return cls.last[0] if cls.last else None
