#
# Varnish in front of `xizor serve`: the SDK's cacheable answers served from the edge.
# (docs/scaling.md, "An edge cache: Varnish"; tested live by Tests/e2e/test_edge_cache.py.)
#
# What the server promises, and what this file relies on:
#   - Only two kinds of request are ever cacheable: the path form of the paywall endpoint,
#     GET /v1/sdk/apps/{publicKey}/placements/{key}/paywall (the app is in the URL, so the URL is
#     the cache key's app part), and GET /v1/sdk/signing-keys. Everything else is passed.
#   - A cacheable answer says `Cache-Control: public, max-age=0, s-maxage=S,
#     stale-while-revalidate=W, stale-if-error=E` and `Vary`s on exactly the request headers that
#     decided it; an answer that depends on the subscriber says `private, no-cache` and is never
#     stored (the builtin VCL turns it into a hit-for-miss: the next request goes to the origin).
#   - Every cacheable answer is tagged `X-Xizor-App: <appId>` and `X-Xizor-Placement: <key>`, and
#     the server sends `BAN` with those headers to each URL of `cache.purgeURLs` after every change
#     that affects serving. Point `cache.purgeURLs` at this Varnish (e.g. ["http://10.0.0.5:6081/"]).
#
# Varnish 7.1 or newer (vcl 4.1, the builtin VCL split into named subroutines).
#
vcl 4.1;

import directors;
import std;

# The origin's readiness: /readyz answers 503 while a server cannot serve (storage down, change
# feed behind, draining). A short interval so a stopped origin is noticed within 2-3 s: two failed
# probes of the last three. `.initial` = the threshold: a backend counts as healthy from the start.
probe xizor_ready {
    .request =
        "GET /readyz HTTP/1.1"
        "Host: xizor"
        "User-Agent: varnish-probe"
        "Connection: close";
    .expected_response = 200;
    .interval = 1s;
    .timeout = 800ms;
    .window = 3;
    .threshold = 2;
    .initial = 2;
}

# The origin: one backend per replica, each with the probe, all added to the director below.
# Operators: your server's address; for a second replica copy the block under another name (e.g.
# `xizor_2`) and add it to `origin` in vcl_init. Tests/e2e/varnish.py does exactly that, so keep
# the host and port literal and on their own lines.
backend xizor {
    .host = "127.0.0.1";
    .port = "8080";
    .connect_timeout = 1s;
    .first_byte_timeout = 30s;
    .between_bytes_timeout = 30s;
    .probe = xizor_ready;
}

sub vcl_init {
    # Requests go round-robin to the replicas the probe finds healthy. Every replica serves the
    # same answers (they share one database and each follows the change feed), so which one
    # answers a miss does not change what is stored.
    new origin = directors.round_robin();
    origin.add_backend(xizor);
}

# Who may BAN: the Xizor servers (their `cache.purgeURLs` point here). Loopback by default; add
# your replicas' addresses.
acl xizor_purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    # Every request, passes and purges too, goes to the director (set again on each restart).
    set req.backend_hint = origin.backend();
    # X-Xizor-Edge is this file's own marker between restarts (see vcl_hit and vcl_deliver); a
    # client never sets it.
    if (req.restarts == 0) {
        unset req.http.X-Xizor-Edge;
        unset req.http.X-Xizor-Edge-Lookup;
    }

    # Purges: BAN with X-Xizor-App (and X-Xizor-Placement when only one placement changed) bans
    # every stored answer carrying those tags. The bans name only obj.* so the ban lurker can
    # evict in the background, and a lookup never returns a banned answer meanwhile.
    if (req.method == "BAN") {
        if (client.ip !~ xizor_purgers) {
            return (synth(403, "Forbidden"));
        }
        # Ids and placement keys are [A-Za-z0-9_.-]; checking them keeps the ban expression to the
        # one condition it means. `X-Xizor-App: *` is every app: the server sends it when it can no
        # longer tell which apps changed (its change log was pruned before it could purge).
        if (req.http.X-Xizor-App == "*") {
            set req.http.X-Xizor-Ban = "obj.http.X-Xizor-App ~ .";
        } elsif (req.http.X-Xizor-App ~ "^[A-Za-z0-9_.-]{1,128}$") {
            set req.http.X-Xizor-Ban = "obj.http.X-Xizor-App == " + req.http.X-Xizor-App;
        } else {
            return (synth(400, "BAN needs X-Xizor-App"));
        }
        if (req.http.X-Xizor-Placement) {
            if (req.http.X-Xizor-Placement !~ "^[A-Za-z0-9_.-]{1,128}$") {
                return (synth(400, "Invalid X-Xizor-Placement"));
            }
            set req.http.X-Xizor-Ban = req.http.X-Xizor-Ban +
                " && obj.http.X-Xizor-Placement == " + req.http.X-Xizor-Placement;
        }
        if (!std.ban(req.http.X-Xizor-Ban)) {
            return (synth(400, std.ban_error()));
        }
        return (synth(200, "Banned"));
    }

    # Only the SDK's cacheable endpoints are looked up; the dashboard, events, MCP, the console, the
    # old SDK endpoint (Authorization-keyed, `no-cache`) and everything else go straight through.
    if (req.url !~ "^/v1/sdk/(apps/[^/?]+/placements/[^/?]+/paywall|signing-keys)([?]|$)") {
        return (pass);
    }
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    # A nonce is signed into the answer (X-Xizor-Signature): that answer is this request's alone,
    # and a stored answer (signed without it) must not be handed out instead.
    if (req.http.X-Xizor-Nonce) {
        return (pass);
    }
    # The builtin VCL passes any request with Authorization or Cookie. On these paths the key is in
    # the path (the server ignores Authorization there) and no cookie is read, so drop both rather
    # than let an SDK that always sends its key bypass the cache.
    unset req.http.Authorization;
    unset req.http.Cookie;
    # The builtin's Host lower-casing and its HTTP/1.1 Host check.
    call vcl_req_host;

    # Normalisation, only where the server reads a header case-insensitively: one stored answer for
    # "iOS", "IOS" and "ios" when a rule on device.platform put X-Xizor-Platform in Vary.
    # Not normalised, on purpose: the query (the server reads parameters by name, but reordering
    # would also reorder a repeated context.K; XizorKit builds it in a fixed order), Accept and
    # Accept-Language (which of their values are equivalent depends on the app's locales and
    # formats; SDKs send `locale=` instead, and Accept-Language is in Vary only when they do not).
    if (req.http.X-Xizor-Platform) {
        set req.http.X-Xizor-Platform = std.tolower(req.http.X-Xizor-Platform);
    }

    # stale-while-revalidate / stale-if-error. A stored answer lives s-maxage (its TTL) plus
    # stale-if-error (its grace, set in vcl_backend_response). How much of the grace a request may
    # use: on a refresh (vcl_hit found the answer older than its stale-while-revalidate while the
    # origin is up) none, so the request waits for a fresh answer; when the origin is sick, or a
    # fetch just failed (X-Xizor-Edge "stale"), all of it; otherwise all of it too, and vcl_hit
    # caps it at the answer's own stale-while-revalidate.
    # (req.grace survives a restart, so every pass sets it.)
    set req.http.X-Xizor-Edge-Lookup = "1";
    if (req.http.X-Xizor-Edge == "refresh") {
        set req.grace = 0s;
    } else {
        set req.grace = 3650d;
    }
    return (hash);
}

sub vcl_hit {
    # An answer past its s-maxage is served while the origin refreshes it in the background only
    # within its own stale-while-revalidate window (the server's cache.staleWhileRevalidateSeconds,
    # read from the stored Cache-Control). Past it, with the origin healthy, the request restarts
    # without grace and waits for the origin; if that fetch fails, vcl_deliver/vcl_synth restart
    # once more with the whole grace, so the stale answer is still served (stale-if-error) even
    # before the probe has noticed the origin is down.
    if (obj.ttl < 0s && req.http.X-Xizor-Edge != "stale" && std.healthy(req.backend_hint)) {
        if (obj.ttl + std.duration(regsub(obj.http.Cache-Control,
                "^.*stale-while-revalidate=([0-9]+).*$", "\1s"), 0s) < 0s) {
            set req.http.X-Xizor-Edge = "refresh";
            return (restart);
        }
    }
    return (deliver);
}

sub vcl_synth {
    # A foreground fetch the origin answered with a 5xx was abandoned (vcl_backend_response): try
    # the stale copy.
    if (req.http.X-Xizor-Edge-Lookup && resp.status == 503 && req.http.X-Xizor-Edge != "stale") {
        set req.http.X-Xizor-Edge = "stale";
        return (restart);
    }
}

sub vcl_deliver {
    # A foreground fetch failed (the origin is unreachable): try the stale copy.
    if (req.http.X-Xizor-Edge-Lookup && resp.status >= 500 && req.http.X-Xizor-Edge != "stale") {
        set req.http.X-Xizor-Edge = "stale";
        return (restart);
    }
    # For operators: HIT, HIT-STALE (served in grace), MISS, or PASS (never stored: a pass, or a
    # subscriber-dependent answer's hit-for-miss). X-Varnish carries two ids on a hit as well.
    if (!req.http.X-Xizor-Edge-Lookup || obj.uncacheable) {
        set resp.http.X-Cache = "PASS";
    } elsif (obj.hits > 0) {
        if (obj.ttl < 0s) {
            set resp.http.X-Cache = "HIT-STALE";
        } else {
            set resp.http.X-Cache = "HIT";
        }
    } else {
        set resp.http.X-Cache = "MISS";
    }
    # X-Xizor-App and X-Xizor-Placement (the purge tags) are left on the answer, as the origin
    # sends them; unset them here if clients should not see them.
}

sub vcl_backend_fetch {
    # The lookup marker is not the origin's business. (X-Xizor-Edge goes along: vcl_backend_response
    # reads it from bereq; the origin ignores it.)
    unset bereq.http.X-Xizor-Edge-Lookup;
}

sub vcl_backend_response {
    # A 5xx never replaces a stored answer: a background refresh is dropped (the stale answer
    # stays), a foreground one is abandoned so vcl_synth can restart onto the stale answer. On that
    # last attempt (nothing stale left) the origin's own error is delivered, unstored.
    if (beresp.status >= 500 && !bereq.uncacheable) {
        if (bereq.is_bgfetch || bereq.http.X-Xizor-Edge != "stale") {
            return (abandon);
        }
        set beresp.ttl = 0s;
        set beresp.grace = 0s;
        set beresp.uncacheable = true;
        return (deliver);
    }
    # Only what says how long it may be kept is stored. The server marks its errors on these paths
    # `no-store` (the builtin VCL below makes them hit-for-miss); an answer without any lifetime (an
    # error of an older server, or of something between) would otherwise be kept default_ttl
    # (120 s), untagged and so beyond any purge: a placement created a second after its 404 would
    # stay 404. Hit-for-miss instead, as the builtin VCL does for private.
    if (!bereq.uncacheable && !beresp.http.Expires && beresp.http.Cache-Control !~ "(?i)(s-maxage|max-age)=") {
        set beresp.ttl = 120s;
        set beresp.uncacheable = true;
        return (deliver);
    }
    # Passes as they came; private / no-cache / no-store answers (the subscriber-dependent ones)
    # become hit-for-miss. Varnish takes the TTL from s-maxage.
    call vcl_builtin_backend_response;
    # The grace: stale-if-error (the server's cache.staleIfErrorSeconds, 86400 by default). Varnish
    # itself would take it from stale-while-revalidate; that window is enforced in vcl_hit instead.
    # Without the directive (an origin of another version), one day.
    if (beresp.http.Cache-Control ~ "stale-if-error=[0-9]+") {
        set beresp.grace = std.duration(regsub(beresp.http.Cache-Control,
            "^.*stale-if-error=([0-9]+).*$", "\1s"), 1d);
    } else {
        set beresp.grace = 1d;
    }
    return (deliver);
}

sub vcl_backend_error {
    # The origin could not be reached: a background refresh keeps the stale answer. A foreground
    # fetch delivers the error, and vcl_deliver restarts onto the stale answer.
    if (bereq.is_bgfetch) {
        return (abandon);
    }
}
