#!/usr/bin/env python3
"""Regenerate the bundled paywall-template media in this directory.

Everything is drawn procedurally (no downloaded or third-party artwork), so
the output is original and dedicated to the public domain (CC0).

Needs:
  * Python 3.9+ with Pillow and numpy
        python3 -m venv /tmp/mediavenv && /tmp/mediavenv/bin/pip install pillow numpy
  * ffmpeg / ffprobe built with libx264  (Debian: apt-get install -y ffmpeg)

Usage (from any directory):
  /tmp/mediavenv/bin/python Sources/XizorDomain/Assets/Bundled/make-media.py [outdir [part ...]]
  part = cinematic | header | sync | lottie   (default: all four)

Outputs (default outdir = the directory of this script):
  cinematic-hero-loop.mp4, cinematic-hero-poster.jpg,
  clean-header.png, clean-sync-demo.mp4, clean-sync-demo-poster.jpg,
  lottie-delight-mascot-wave.json, lottie-delight-mascot-wave.png

Output is deterministic for a given Pillow/numpy/ffmpeg/x264 version
(x264 runs single-threaded here for that reason).
"""

import json
import math
import os
import subprocess
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))


def hexrgb(h):
    h = h.lstrip("#")
    return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))


# --------------------------------------------------------------------------
# ffmpeg helpers
# --------------------------------------------------------------------------

def encode(frames, w, h, fps, path, crf, level="3.1"):
    """Pipe RGB frames (iterable of HxWx3 uint8 arrays) into libx264."""
    cmd = [
        "ffmpeg", "-y", "-hide_banner", "-loglevel", "error",
        "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-r", str(fps), "-i", "-",
        "-an", "-c:v", "libx264", "-profile:v", "main", "-level", level,
        "-preset", "veryslow", "-crf", str(crf), "-threads", "1",
        "-pix_fmt", "yuv420p", "-color_primaries", "bt709", "-color_trc", "bt709",
        "-colorspace", "bt709", "-color_range", "tv",
        "-g", str(fps * 10), "-movflags", "+faststart",
        "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:v", "+bitexact",
        path,
    ]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE)
    for f in frames:
        p.stdin.write(np.ascontiguousarray(f, dtype=np.uint8).tobytes())
    p.stdin.close()
    if p.wait() != 0:
        raise SystemExit(f"ffmpeg failed for {path}")


def poster(video, path, q):
    subprocess.run([
        "ffmpeg", "-y", "-hide_banner", "-loglevel", "error", "-i", video,
        "-frames:v", "1", "-q:v", str(q), "-map_metadata", "-1",
        "-fflags", "+bitexact", "-flags:v", "+bitexact", path,
    ], check=True)


# --------------------------------------------------------------------------
# 1+2. cinematic-hero-loop.mp4 / cinematic-hero-poster.jpg
#      Dark, slow-moving aurora-like light for a streaming-service paywall.
# --------------------------------------------------------------------------

def cinematic():
    W, H, FPS, SECS = 720, 1280, 24, 5
    N = FPS * SECS
    S = 4                                   # compute at 1/S resolution, upscale (it is all soft light)
    w, h = W // S, H // S
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    u, v = xs / w, ys / h                   # 0..1

    base_top, base_bot = np.array(hexrgb("#0a0d24"), np.float32), np.array(hexrgb("#03040c"), np.float32)
    base = base_top[None, None, :] * (1 - v[..., None]) + base_bot[None, None, :] * v[..., None]

    # (colour, centre x, centre y, radius x, radius y, orbit ax, orbit ay, freq, phase, strength)
    blobs = [
        ("#5b2bb5", 0.25, 0.22, 0.55, 0.30, 0.10, 0.05, 1, 0.0, 0.80),   # violet
        ("#0f8f9a", 0.80, 0.38, 0.45, 0.28, 0.08, 0.07, 1, 2.1, 0.70),   # teal
        ("#1e3fae", 0.45, 0.55, 0.60, 0.25, 0.12, 0.05, 1, 4.0, 0.65),   # deep blue
        ("#b0308a", 0.88, 0.12, 0.32, 0.20, 0.05, 0.04, 2, 1.0, 0.60),   # magenta glint
        ("#2a6fd6", 0.10, 0.62, 0.30, 0.20, 0.06, 0.05, 1, 3.3, 0.35),   # cold blue, lower left
    ]
    blobs = [(np.array(hexrgb(c), np.float32) / 255.0, *rest) for c, *rest in blobs]

    rng = np.random.default_rng(7)
    motes = [(rng.uniform(0.05, 0.95), rng.uniform(0.05, 0.75), rng.uniform(0.006, 0.016),
              rng.uniform(0, 2 * math.pi), int(rng.integers(1, 3))) for _ in range(18)]

    # vignette + bottom fade (keeps the lower half dark for paywall copy)
    vig = 1.0 - 0.55 * np.clip(((u - 0.5) / 0.75) ** 2 + ((v - 0.42) / 0.85) ** 2, 0, 1)
    bottom = 1.0 - 0.75 * np.clip((v - 0.45) / 0.55, 0, 1) ** 1.4

    def frame(i):
        th = 2 * math.pi * i / N            # one full cycle per loop -> seamless
        light = np.zeros((h, w, 3), np.float32)
        for col, cx, cy, rx, ry, ax, ay, f, ph, k in blobs:
            x0 = cx + ax * math.cos(f * th + ph)
            y0 = cy + ay * math.sin(f * th + ph)
            pulse = 0.85 + 0.15 * math.sin(th + ph * 1.7)
            g = np.exp(-(((u - x0) / rx) ** 2 + ((v - y0) / ry) ** 2) * 2.2)
            light += g[..., None] * col[None, None, :] * (k * pulse)
        # two slow diagonal light beams
        for ang0, off, wid, amp, col in ((0.55, 0.30, 0.07, 0.30, (0.55, 0.62, 1.0)),
                                         (0.70, 0.75, 0.10, 0.20, (0.45, 0.95, 0.95))):
            ang = ang0 + 0.06 * math.sin(th + off * 5)
            d = (u - off - 0.05 * math.sin(th)) * math.cos(ang) + v * math.sin(ang) * 0.45
            beam = np.exp(-(d / wid) ** 2) * np.clip(1.1 - v * 1.4, 0, 1)
            light += beam[..., None] * np.array(col, np.float32)[None, None, :] * amp
        # soft drifting motes (closed Lissajous paths, twinkling)
        for mx, my, r, ph, f in motes:
            x0 = mx + 0.02 * math.sin(f * th + ph)
            y0 = my + 0.03 * math.cos(th + ph)
            a = 0.5 + 0.5 * math.sin(f * th + ph * 2)
            g = np.exp(-(((u - x0) * w) ** 2 + ((v - y0) * h) ** 2) / (r * w) ** 2)
            light += g[..., None] * (0.35 * a) * np.array((0.75, 0.85, 1.0), np.float32)[None, None, :]
        img = base / 255.0 + light * 0.75
        img = 1.0 - np.exp(-img * 1.35)     # gentle filmic tone-map
        img *= (vig * bottom)[..., None]
        small = Image.fromarray(np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8))
        return np.asarray(small.resize((W, H), Image.BICUBIC))

    path = os.path.join(OUT, "cinematic-hero-loop.mp4")
    encode((frame(i) for i in range(N)), W, H, FPS, path, crf=22)
    poster(path, os.path.join(OUT, "cinematic-hero-poster.jpg"), q=3)


# --------------------------------------------------------------------------
# 3. clean-header.png  — light "Notes Pro" header illustration
# --------------------------------------------------------------------------

ACCENT = hexrgb("#4f5bff")
ACCENT_SOFT = hexrgb("#dfe3ff")
AMBER = hexrgb("#ffc247")
INK = hexrgb("#2b2f45")
LINE = hexrgb("#e3e6ef")
BG_TOP, BG_BOT = hexrgb("#f7f8fc"), hexrgb("#eef1fa")


def rounded_shadow(size, box, radius, blur, offset, alpha):
    sh = Image.new("L", size, 0)
    x0, y0, x1, y1 = box
    ImageDraw.Draw(sh).rounded_rectangle((x0 + offset[0], y0 + offset[1], x1 + offset[0], y1 + offset[1]),
                                         radius, fill=alpha)
    return sh.filter(ImageFilter.GaussianBlur(blur))


def paste_color(img, mask, color):
    img.paste(Image.new("RGB", img.size, color), (0, 0), mask)


def clean_header():
    W, H, SS = 780, 360, 3
    w, h = W * SS, H * SS
    s = lambda *vals: tuple(int(round(x * SS)) for x in vals)
    # background: soft vertical gradient
    grad = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
    bg = np.array(BG_TOP, np.float32) * (1 - grad) + np.array(BG_BOT, np.float32) * grad
    img = Image.fromarray(np.repeat(bg, w, axis=1).astype(np.uint8))
    d = ImageDraw.Draw(img)

    # decorative soft blobs
    blob = Image.new("L", (w, h), 0)
    bd = ImageDraw.Draw(blob)
    bd.ellipse(s(250, 40, 530, 320), fill=255)
    blob = blob.filter(ImageFilter.GaussianBlur(6 * SS))
    paste_color(img, blob.point(lambda p: int(p * 0.55)), ACCENT_SOFT)
    for (cx, cy, r, col) in ((205, 92, 7, ACCENT_SOFT), (590, 78, 5, AMBER), (600, 270, 9, ACCENT_SOFT),
                             (180, 250, 4, AMBER), (560, 180, 3, ACCENT)):
        d.ellipse(s(cx - r, cy - r, cx + r, cy + r), fill=col)
    # sparkles
    for (cx, cy, r) in ((228, 150, 9), (548, 120, 7)):
        pts = []
        for k in range(8):
            rr = r if k % 2 == 0 else r * 0.28
            a = k * math.pi / 4 - math.pi / 2
            pts.append((SS * (cx + rr * math.cos(a)), SS * (cy + rr * math.sin(a))))
        d.polygon(pts, fill=ACCENT)

    # back page (tilted) — drawn on its own layer and rotated
    def page_layer(box, angle, fill, shadow_alpha):
        lay = Image.new("RGBA", (w, h), (0, 0, 0, 0))
        x0, y0, x1, y1 = box
        shm = rounded_shadow((w, h), s(*box), 14 * SS, 10 * SS, s(0, 8), shadow_alpha)
        lay.paste(Image.new("RGBA", (w, h), (40, 50, 110, 255)), (0, 0), shm)
        ld = ImageDraw.Draw(lay)
        ld.rounded_rectangle(s(*box), 14 * SS, fill=fill + (255,))
        for k in range(5):
            yy = y0 + 40 + k * 22
            if yy < y1 - 20:
                ld.rounded_rectangle(s(x0 + 20, yy, x1 - 20 - (k % 2) * 30, yy + 6), 3 * SS, fill=LINE + (255,))
        cx, cy = (x0 + x1) / 2 * SS, (y0 + y1) / 2 * SS
        return lay.rotate(angle, resample=Image.BICUBIC, center=(cx, cy))

    img = img.convert("RGBA")
    img.alpha_composite(page_layer((300, 70, 470, 290), 9, (255, 255, 255), 60))
    img.alpha_composite(page_layer((318, 64, 488, 284), -5, (250, 251, 255), 60))

    # front notebook
    nb = (312, 58, 482, 300)
    lay = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    lay.paste(Image.new("RGBA", (w, h), (40, 50, 120, 255)), (0, 0),
              rounded_shadow((w, h), s(*nb), 16 * SS, 14 * SS, s(0, 12), 90))
    ld = ImageDraw.Draw(lay)
    ld.rounded_rectangle(s(*nb), 16 * SS, fill=(255, 255, 255, 255))
    # accent spine
    ld.rounded_rectangle(s(nb[0], nb[1], nb[0] + 34, nb[3]), 16 * SS, fill=ACCENT + (255,))
    ld.rectangle(s(nb[0] + 18, nb[1], nb[0] + 34, nb[3]), fill=ACCENT + (255,))
    # rings
    for k in range(6):
        yy = nb[1] + 30 + k * 38
        ld.rounded_rectangle(s(nb[0] + 24, yy, nb[0] + 46, yy + 9), 4.5 * SS, fill=(214, 219, 240, 255))
        ld.ellipse(s(nb[0] + 38, yy, nb[0] + 47, yy + 9), fill=(190, 197, 228, 255))
    # title bar + text lines
    px = nb[0] + 62
    ld.rounded_rectangle(s(px, nb[1] + 26, px + 86, nb[1] + 38), 6 * SS, fill=INK + (255,))
    ld.rounded_rectangle(s(px, nb[1] + 50, px + 58, nb[1] + 58), 4 * SS, fill=(196, 201, 218, 255))
    # checklist
    for k, (done, ln) in enumerate(((True, 70), (True, 54), (False, 76))):
        yy = nb[1] + 84 + k * 34
        if done:
            ld.rounded_rectangle(s(px, yy, px + 18, yy + 18), 5 * SS, fill=ACCENT + (255,))
            ld.line([s(px + 4.5, yy + 9.5), s(px + 8, yy + 13), s(px + 14, yy + 5.5)],
                    fill=(255, 255, 255, 255), width=int(2.6 * SS), joint="curve")
            txt = (206, 210, 226, 255)
        else:
            ld.rounded_rectangle(s(px, yy, px + 18, yy + 18), 5 * SS, outline=(190, 196, 220, 255),
                                 width=int(2 * SS))
            txt = INK + (210,)
        ld.rounded_rectangle(s(px + 28, yy + 6, px + 28 + ln, yy + 12), 3 * SS, fill=txt)
    # highlighted line
    yy = nb[1] + 196
    ld.rounded_rectangle(s(px - 4, yy - 5, px + 92, yy + 11), 5 * SS, fill=AMBER + (120,))
    ld.rounded_rectangle(s(px, yy, px + 86, yy + 6), 3 * SS, fill=INK + (200,))
    ld.rounded_rectangle(s(px, yy + 22, px + 64, yy + 28), 3 * SS, fill=(206, 210, 226, 255))
    img.alpha_composite(lay)

    # pencil, drawn horizontally then rotated into place
    pw, ph = 200, 26
    pen = Image.new("RGBA", (pw * SS, ph * 3 * SS), (0, 0, 0, 0))
    pd = ImageDraw.Draw(pen)
    oy = ph
    pd.rounded_rectangle(s(0, oy, 26, oy + ph), 8 * SS, fill=hexrgb("#ff8fa3") + (255,))        # eraser
    pd.rectangle(s(20, oy, 36, oy + ph), fill=hexrgb("#c9cedf") + (255,))                      # ferrule
    pd.rectangle(s(36, oy, 160, oy + ph), fill=AMBER + (255,))                                  # body
    pd.rectangle(s(36, oy + ph * 0.62, 160, oy + ph), fill=hexrgb("#f2ab2a") + (255,))
    pd.polygon([s(160, oy), s(196, oy + ph / 2), s(160, oy + ph)], fill=hexrgb("#f6dcb4") + (255,))  # wood
    pd.polygon([s(184, oy + ph / 2 - 4.3), s(198, oy + ph / 2), s(184, oy + ph / 2 + 4.3)], fill=INK + (255,))
    pen = pen.rotate(38, resample=Image.BICUBIC, expand=True)
    shadow = Image.new("RGBA", pen.size, (40, 50, 120, 0))
    shadow.putalpha(pen.getchannel("A").point(lambda a: int(a * 0.28)).filter(ImageFilter.GaussianBlur(6 * SS)))
    ox, oy2 = 455 * SS, 120 * SS
    img.alpha_composite(shadow, (ox + 6 * SS, oy2 + 12 * SS))
    img.alpha_composite(pen, (ox, oy2))

    out = img.convert("RGB").resize((W, H), Image.LANCZOS)
    out = out.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.FLOYDSTEINBERG)
    out.save(os.path.join(OUT, "clean-header.png"), optimize=True)


# --------------------------------------------------------------------------
# 4+5. clean-sync-demo.mp4 / clean-sync-demo-poster.jpg
#      Phone -> tablet: a new note line is typed, travels as a dot, appears.
# --------------------------------------------------------------------------

def ease(x):
    x = min(max(x, 0.0), 1.0)
    return x * x * (3 - 2 * x)


def clean_sync():
    W, H, FPS, SECS, SS = 640, 360, 30, 4, 2
    N = FPS * SECS
    w, h = W * SS, H * SS
    s = lambda *vals: tuple(int(round(x * SS)) for x in vals)

    grad = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
    bgarr = np.array(BG_TOP, np.float32) * (1 - grad) + np.array(BG_BOT, np.float32) * grad
    background = Image.fromarray(np.repeat(bgarr, w, axis=1).astype(np.uint8)).convert("RGBA")

    phone = (110, 70, 230, 300)        # x0, y0, x1, y1
    tab = (340, 90, 560, 270)

    # static devices layer (with shadows) drawn once
    static = background.copy()
    for box, r in ((phone, 22), (tab, 18)):
        shm = rounded_shadow((w, h), s(*box), r * SS, 10 * SS, s(0, 8), 70)
        static.paste(Image.new("RGBA", (w, h), (40, 50, 120, 255)), (0, 0), shm)
    sd = ImageDraw.Draw(static)
    for box, r, bezel in ((phone, 22, 8), (tab, 18, 10)):
        sd.rounded_rectangle(s(*box), r * SS, fill=INK + (255,))
        x0, y0, x1, y1 = box
        sd.rounded_rectangle(s(x0 + bezel, y0 + bezel, x1 - bezel, y1 - bezel), (r - bezel + 4) * SS,
                             fill=(255, 255, 255, 255))
    # phone notch + tablet camera dot
    sd.rounded_rectangle(s(152, 80, 188, 86), 3 * SS, fill=INK + (255,))
    sd.ellipse(s(448, 93, 452, 97), fill=(90, 96, 120, 255))

    def note_lines(d, x, y, widths, col):
        for k, ln in enumerate(widths):
            d.rounded_rectangle(s(x, y + k * 20, x + ln, y + k * 20 + 7), 3.5 * SS, fill=col)

    # static note content
    sd.rounded_rectangle(s(128, 104, 188, 114), 5 * SS, fill=INK + (255,))
    note_lines(sd, 128, 130, (84, 62, 76), (208, 212, 228, 255))
    sd.rounded_rectangle(s(362, 114, 442, 124), 5 * SS, fill=INK + (255,))
    note_lines(sd, 362, 140, (160, 120, 144), (208, 212, 228, 255))

    # arc from phone to tablet (quadratic bezier)
    p0, pc, p2 = (236, 160), (290, 95), (334, 160)

    def arc(t):
        return ((1 - t) ** 2 * p0[0] + 2 * (1 - t) * t * pc[0] + t * t * p2[0],
                (1 - t) ** 2 * p0[1] + 2 * (1 - t) * t * pc[1] + t * t * p2[1])

    def frame(i):
        t = i / FPS
        im = static.copy()
        d = ImageDraw.Draw(im)
        fade = 1.0 - ease((t - 3.45) / 0.5)                   # everything new fades out at the end
        # dashed arc (always faintly visible)
        for k in range(15):
            a = arc(k / 14.0)
            d.ellipse(s(a[0] - 1.6, a[1] - 1.6, a[0] + 1.6, a[1] + 1.6), fill=(196, 202, 236, 255))
        # 1) new line typed on the phone (0.1 .. 0.9 s), accent coloured
        grow = ease((t - 0.1) / 0.8)
        if grow > 0 and fade > 0:
            col = tuple(int(c * fade + 255 * (1 - fade)) for c in ACCENT) + (255,)
            d.rounded_rectangle(s(128, 190, 128 + max(7, 70 * grow), 197), 3.5 * SS, fill=col)
        # 2) sync dot travels along the arc (1.0 .. 2.0 s)
        mv = (t - 1.0) / 1.0
        if 0 <= mv <= 1:
            e = ease(mv)
            for k in range(6, 0, -1):                               # trail
                tt = max(0.0, e - k * 0.035)
                a = arc(tt)
                r = 6 - k * 0.6
                c = tuple(int(ACCENT[j] + (255 - ACCENT[j]) * k / 7.5) for j in range(3))
                d.ellipse(s(a[0] - r, a[1] - r, a[0] + r, a[1] + r), fill=c + (255,))
            a = arc(e)
            d.ellipse(s(a[0] - 10, a[1] - 10, a[0] + 10, a[1] + 10), fill=ACCENT_SOFT + (255,))
            d.ellipse(s(a[0] - 7, a[1] - 7, a[0] + 7, a[1] + 7), fill=ACCENT + (255,))
        # 3) the line appears on the tablet (2.0 .. 2.6 s) + check badge pops
        grow2 = ease((t - 2.0) / 0.6)
        if grow2 > 0 and fade > 0:
            col = tuple(int(c * fade + 255 * (1 - fade)) for c in ACCENT) + (255,)
            d.rounded_rectangle(s(362, 200, 362 + max(7, 130 * grow2), 207), 3.5 * SS, fill=col)
        pop = ease((t - 2.2) / 0.25)
        if pop > 0 and fade > 0:
            over = 1 + 0.25 * math.sin(math.pi * min(1.0, (t - 2.2) / 0.4))
            r = 13 * pop * over * (0.6 + 0.4 * fade)
            cx, cy = 540, 110
            green = hexrgb("#2fbf71")
            col = tuple(int(green[j] * fade + 255 * (1 - fade)) for j in range(3)) + (255,)
            d.ellipse(s(cx - r, cy - r, cx + r, cy + r), fill=col)
            if r > 6:
                k = r / 13
                d.line([s(cx - 5.5 * k, cy + 0.5 * k), s(cx - 1.5 * k, cy + 4.5 * k), s(cx + 6 * k, cy - 4 * k)],
                       fill=(255, 255, 255, 255), width=max(1, int(2.8 * SS * k)), joint="curve")
        # phone "sending" pulse ring on the phone (0.8 .. 1.3 s)
        pr = (t - 0.8) / 0.5
        if 0 <= pr <= 1:
            r = 8 + 14 * pr
            c = tuple(int(ACCENT[j] + (255 - ACCENT[j]) * pr) for j in range(3)) + (255,)
            d.ellipse(s(236 - r, 160 - r, 236 + r, 160 + r), outline=c, width=int(2 * SS))
        return np.asarray(im.convert("RGB").resize((W, H), Image.LANCZOS))

    path = os.path.join(OUT, "clean-sync-demo.mp4")
    encode((frame(i) for i in range(N)), W, H, FPS, path, crf=24, level="3.0")
    poster(path, os.path.join(OUT, "clean-sync-demo-poster.jpg"), q=4)


# --------------------------------------------------------------------------
# 6+7. lottie-delight-mascot-wave.json / .png
#      One geometry description -> Lottie JSON and a Pillow-rendered fallback.
# --------------------------------------------------------------------------

FR, OP, LW, LH = 30, 60, 512, 512
BODY = hexrgb("#ffb547")
BODY_DARK = hexrgb("#f29a2e")
FACE_INK = hexrgb("#2b2540")
CHEEK = hexrgb("#ff7a8a")
LEAF = hexrgb("#3ccf8e")

BODY_POS = (256, 280)          # body centre (layer position) at rest
BODY_D = 250                   # body diameter
HIGHLIGHT = (-58, -72)         # glossy highlight centre, relative to body centre
RESTING_ARM = (-112, 46)      # centre of the resting arm, relative to body centre
SHOULDER = (92, 8)             # waving arm pivot, relative to body centre
ARM_LEN, ARM_W, HAND_D = 112, 40, 60
WAVE = [(0, 28), (8, 52), (16, 18), (24, 52), (32, 18), (40, 48), (50, 28), (60, 28)]   # (frame, deg cw)
BOB = [(0, 0), (15, -10), (30, 0), (45, -10), (60, 0)]                                # body y offset
BLINK = [(0, 100), (44, 100), (47, 10), (50, 100), (60, 100)]                          # eye y scale %


def col(c, a=1):
    return [round(c[0] / 255, 4), round(c[1] / 255, 4), round(c[2] / 255, 4), a]


def static(k):
    return {"a": 0, "k": k}


def animated(keys, wrap=lambda v: [v]):
    """keys: [(frame, value)] -> bodymovin keyframes (ease in/out, last key has only t+s)."""
    out = []
    for n, (t, val) in enumerate(keys):
        kf = {"t": t, "s": wrap(val)}
        if n < len(keys) - 1:
            kf["i"] = {"x": [0.42], "y": [1]}
            kf["o"] = {"x": [0.58], "y": [0]}
        out.append(kf)
    return {"a": 1, "k": out}


def tr(p=(0, 0), a=(0, 0), s=(100, 100), r=0, o=100):
    return {"ty": "tr", "nm": "Transform",
            "p": p if isinstance(p, dict) else static(list(p)),
            "a": static(list(a)),
            "s": s if isinstance(s, dict) else static(list(s)),
            "r": r if isinstance(r, dict) else static(r),
            "o": static(o), "sk": static(0), "sa": static(0)}


def el(size, pos=(0, 0), nm="Ellipse"):
    return {"ty": "el", "nm": nm, "d": 1, "s": static(list(size)), "p": static(list(pos))}


def rc(size, pos=(0, 0), r=0, nm="Rect"):
    return {"ty": "rc", "nm": nm, "d": 1, "s": static(list(size)), "p": static(list(pos)), "r": static(r)}


def fl(c, o=100, nm="Fill"):
    return {"ty": "fl", "nm": nm, "c": static(col(c)), "o": static(o), "r": 1, "bm": 0}


def st(c, w, o=100, nm="Stroke"):
    return {"ty": "st", "nm": nm, "c": static(col(c)), "o": static(o), "w": static(w),
            "lc": 2, "lj": 2, "ml": 4, "bm": 0}


def gr(nm, items, transform=None):
    return {"ty": "gr", "nm": nm, "np": len(items), "cix": 2, "bm": 0, "it": items + [transform or tr()]}


def layer(ind, nm, shapes, p, a=(0, 0), r=0, s=(100, 100), parent=None):
    ks = {"o": static(100),
          "r": r if isinstance(r, dict) else static(r),
          "p": p if isinstance(p, dict) else static(list(p) + [0]),
          "a": static(list(a) + [0]),
          "s": s if isinstance(s, dict) else static(list(s) + [100])}
    L = {"ddd": 0, "ind": ind, "ty": 4, "nm": nm, "sr": 1, "ks": ks, "ao": 0,
         "shapes": shapes, "ip": 0, "op": OP, "st": 0, "bm": 0}
    if parent is not None:
        L["parent"] = parent
    return L


# Mouth: open cubic path (vertices absolute, tangents relative — bodymovin convention)
MOUTH = {"v": [[-30, 30], [30, 30]], "i": [[0, 0], [-14, 24]], "o": [[14, 24], [0, 0]], "c": False}
# Leaf sprout: two closed leaf paths
LEAF_L = {"v": [[0, 0], [-44, -28]], "i": [[-24, 4], [22, -8]], "o": [[-4, -24], [4, 20]], "c": True}
LEAF_R = {"v": [[0, 0], [44, -34]], "i": [[24, 4], [-22, -8]], "o": [[4, -26], [-4, 22]], "c": True}


def sh(path, nm="Path"):
    return {"ty": "sh", "nm": nm, "d": 1, "ks": static(path)}


def lottie_doc():
    r = BODY_D / 2
    eye = lambda x: gr("Eye", [
        gr("Shine", [el((16, 16), (7, -10)), fl((255, 255, 255))]),
        gr("Pupil", [el((34, 46), (0, 0)), fl(FACE_INK)]),
    ], tr(p=(x, -22), s=animated(BLINK, wrap=lambda v: [100, v])))
    features = layer(2, "Face", [
        eye(-46), eye(46),
        gr("Mouth", [sh(MOUTH), st(FACE_INK, 10)]),
        gr("Cheeks", [el((40, 24), (-84, 22)), el((40, 24), (84, 22)), fl(CHEEK, 55)]),
    ], p=(0, 0), parent=1)
    body = layer(1, "Body", [
        gr("Highlight", [el((64, 34)), fl((255, 255, 255), 30)], tr(p=HIGHLIGHT, r=-35)),
        gr("Body", [el((BODY_D, BODY_D)), fl(BODY)]),
    ], p=animated(BOB, wrap=lambda v: [BODY_POS[0], BODY_POS[1] + v, 0]))
    arm = layer(3, "Waving arm", [
        gr("Hand", [el((HAND_D, HAND_D), (0, -ARM_LEN)), fl(BODY)]),
        gr("Arm", [rc((ARM_W, ARM_LEN), (0, -ARM_LEN / 2), ARM_W / 2), fl(BODY)]),
    ], p=SHOULDER, a=(0, 0), r=animated(WAVE), parent=1)
    other_arm = layer(4, "Resting arm", [
        gr("Arm", [el((40, 74)), fl(BODY_DARK)], tr(p=RESTING_ARM, r=25)),
    ], p=(0, 0), parent=1)
    sprout = layer(5, "Sprout", [
        gr("Leaves", [sh(LEAF_L, "Leaf L"), sh(LEAF_R, "Leaf R"), fl(LEAF)]),
        gr("Stem", [rc((8, 24), (0, 10), 4), fl(hexrgb("#2eb57a"))]),
    ], p=(0, -r + 4), parent=1)
    shadow = layer(6, "Shadow", [gr("Shadow", [el((190, 26)), fl((40, 30, 70), 14)])],
                   p=(256, 448), s=animated(BOB, wrap=lambda v: [100 + v, 100 + v, 100]))
    # first layer is drawn on top
    layers = [features, arm, body, other_arm, sprout, shadow]
    return {"v": "5.7.4", "fr": FR, "ip": 0, "op": OP, "w": LW, "h": LH, "nm": "Delight mascot wave",
            "ddd": 0, "assets": [], "markers": [], "layers": layers}


def bezier_points(v, i, o, closed, steps=40):
    pts = []
    n = len(v)
    segs = n if closed else n - 1
    for k in range(segs):
        a, b = v[k], v[(k + 1) % n]
        c1 = (a[0] + o[k][0], a[1] + o[k][1])
        c2 = (b[0] + i[(k + 1) % n][0], b[1] + i[(k + 1) % n][1])
        for j in range(steps + (0 if k < segs - 1 else 1)):
            t = j / steps
            mt = 1 - t
            pts.append((mt ** 3 * a[0] + 3 * mt * mt * t * c1[0] + 3 * mt * t * t * c2[0] + t ** 3 * b[0],
                        mt ** 3 * a[1] + 3 * mt * mt * t * c1[1] + 3 * mt * t * t * c2[1] + t ** 3 * b[1]))
    return pts


def mascot_png(frame_wave_deg=52):
    """Pillow re-draw of the Lottie geometry (rest pose, arm raised) for the static fallback."""
    SS = 4
    size = LW * SS
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    S = lambda x: x * SS
    bx, by = BODY_POS
    r = BODY_D / 2

    def ell(cx, cy, w_, h_, c, a=255, draw=d):
        draw.ellipse((S(cx - w_ / 2), S(cy - h_ / 2), S(cx + w_ / 2), S(cy + h_ / 2)), fill=tuple(c) + (a,))

    def over(layer_img):
        img.alpha_composite(layer_img)

    # shadow (bottom-most)
    ell(256, 448, 190, 26, (40, 30, 70), int(255 * 0.14))
    # sprout
    sp = Image.new("RGBA", img.size, (0, 0, 0, 0))
    spd = ImageDraw.Draw(sp)
    ox, oy = bx, by - r + 4
    for P in (LEAF_L, LEAF_R):
        pts = [(S(ox + x), S(oy + y)) for x, y in bezier_points(P["v"], P["i"], P["o"], True)]
        spd.polygon(pts, fill=LEAF + (255,))
    spd.rounded_rectangle((S(ox - 4), S(oy - 2), S(ox + 4), S(oy + 22)), S(4), fill=hexrgb("#2eb57a") + (255,))
    over(sp)
    # resting arm (rotated ellipse, 25 deg clockwise)
    ra = Image.new("RGBA", img.size, (0, 0, 0, 0))
    ax, ay = bx + RESTING_ARM[0], by + RESTING_ARM[1]
    ell(ax, ay, 40, 74, BODY_DARK, draw=ImageDraw.Draw(ra))
    over(ra.rotate(-25, resample=Image.BICUBIC, center=(S(ax), S(ay))))
    # body + belly shade
    ell(bx, by, BODY_D, BODY_D, BODY)
    hl = Image.new("RGBA", img.size, (0, 0, 0, 0))
    hx, hy = bx + HIGHLIGHT[0], by + HIGHLIGHT[1]
    ell(hx, hy, 64, 34, (255, 255, 255), int(255 * 0.30), draw=ImageDraw.Draw(hl))
    over(hl.rotate(35, resample=Image.BICUBIC, center=(S(hx), S(hy))))
    # waving arm (above body)
    wa = Image.new("RGBA", img.size, (0, 0, 0, 0))
    wd = ImageDraw.Draw(wa)
    sx, sy = bx + SHOULDER[0], by + SHOULDER[1]
    wd.rounded_rectangle((S(sx - ARM_W / 2), S(sy - ARM_LEN), S(sx + ARM_W / 2), S(sy)), S(ARM_W / 2),
                         fill=BODY + (255,))
    ell(sx, sy - ARM_LEN, HAND_D, HAND_D, BODY, draw=wd)
    over(wa.rotate(-frame_wave_deg, resample=Image.BICUBIC, center=(S(sx), S(sy))))
    # face
    for ex in (-46, 46):
        ell(bx + ex, by - 22, 34, 46, FACE_INK)
        ell(bx + ex + 7, by - 22 - 10, 16, 16, (255, 255, 255))
    # round-capped stroke, width 10: stamp discs densely along the bezier
    for x, y in bezier_points(MOUTH["v"], MOUTH["i"], MOUTH["o"], False, steps=240):
        d.ellipse((S(bx + x - 5), S(by + y - 5), S(bx + x + 5), S(by + y + 5)), fill=FACE_INK + (255,))
    ch = Image.new("RGBA", img.size, (0, 0, 0, 0))
    for cx in (-84, 84):
        ell(bx + cx, by + 22, 40, 24, CHEEK, int(255 * 0.55), draw=ImageDraw.Draw(ch))
    img.alpha_composite(ch)
    out = img.resize((LW, LH), Image.LANCZOS)
    out = out.quantize(colors=96, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out.save(os.path.join(OUT, "lottie-delight-mascot-wave.png"), optimize=True)


def lottie():
    with open(os.path.join(OUT, "lottie-delight-mascot-wave.json"), "w") as f:
        json.dump(lottie_doc(), f, separators=(",", ":"))
        f.write("\n")
    mascot_png()


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    which = set(sys.argv[2:]) or {"cinematic", "header", "sync", "lottie"}
    if "lottie" in which:
        lottie()
    if "header" in which:
        clean_header()
    if "sync" in which:
        clean_sync()
    if "cinematic" in which:
        cinematic()
    for name in sorted(os.listdir(OUT)):
        if not name.endswith((".py", ".md")):
            print(f"{os.path.getsize(os.path.join(OUT, name)):>8}  {name}")
