/// The page's fixed CSS (theme variables and the used keyframes are added per page). Compact on purpose:
/// every page carries it. Text sizes are `rem` over `--xz-b`, so they follow the reader's text size
/// (browser/Android text zoom; Dynamic Type in WKWebView through `-apple-system-body`).
enum BaseStylesheet {
    static let css = #"""
        *,::before,::after{box-sizing:border-box}html{--xz-b:16;--xz-font:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",sans-serif;--xz-ph:rgba(128,128,128,.18);--xz-sel:var(--c-accent,currentColor);--xz-focus:var(--c-accent,#2563eb);-webkit-text-size-adjust:100%;text-size-adjust:100%;-webkit-tap-highlight-color:transparent}
        @supports (font:-apple-system-body){html{font:-apple-system-body;--xz-b:17}}
        html.xz-light{--xz-fg:#111;background:#fff}html.xz-dark{--xz-fg:#f4f4f5;background:#000}
        html,body{margin:0;min-height:100%}body{font-family:var(--xz-font);font-size:1rem;line-height:1.3;color:var(--c-text,var(--xz-fg));-webkit-font-smoothing:antialiased;overflow-x:hidden}
        .xz-bg{position:fixed;inset:0;z-index:-1;overflow:hidden}.xz-bg>img,.xz-bg>video,.xz-bg>canvas,.xz-bg-overlay{position:absolute;inset:0;width:100%;height:100%;object-fit:cover}.xz-bg>img,.xz-bg>video{opacity:0;transition:opacity .6s}.xz-bg>img.xz-loaded,.xz-bg>video.xz-playing{opacity:1}
        .xz-page{min-height:100vh;min-height:100dvh;display:flex;flex-direction:column}
        .xz-safe-all{padding:env(safe-area-inset-top) env(safe-area-inset-right) env(safe-area-inset-bottom) env(safe-area-inset-left)}.xz-safe-top{padding-top:env(safe-area-inset-top)}.xz-safe-bottom{padding-bottom:env(safe-area-inset-bottom)}
        .xz-root{flex:1 0 auto;width:100%;max-width:600px;margin-inline:auto}
        .xz-col,.xz-row{display:flex;flex-direction:column;min-width:0}.xz-row{flex-direction:row}.xz-layer{display:grid;grid-template:1fr/1fr}.xz-layer>*{grid-area:1/1}.xz-layer-fill>.xz-row{align-self:start}
        .xz-row>*{min-width:0}.xz-scroll-y{overflow-y:auto;min-height:0}.xz-scroll-x{overflow-x:auto}
        .xz-wfill{align-self:stretch;justify-self:stretch}.xz-row>.xz-wfill{flex:1 1 0}.xz-hfill{align-self:stretch}.xz-col>.xz-hfill{flex:1 1 0}
        .xz-text{margin:0;white-space:pre-line;overflow-wrap:anywhere}
        .xz-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
        .xz-media{position:relative;overflow:hidden;background:var(--xz-ph);min-width:0}.xz-media>img,.xz-media>video{position:relative;display:block;width:100%;height:100%;object-fit:cover;opacity:0;transition:opacity .3s}.xz-media.xz-done{background:none}.xz-done>.xz-bh{display:none}.xz-media>img.xz-natural{height:auto;min-height:48px}.xz-media>.xz-loaded{opacity:1}.xz-media>video[poster],.xz-media>video.xz-loaded{opacity:1}
        .xz-bh{position:absolute;inset:0;width:100%;height:100%}
        .xz-lottie{position:relative;min-width:0}.xz-lottie-stage{position:absolute;inset:0}.xz-lottie-stage svg{display:block}.xz-lottie.xz-ready>.xz-lottie-fb{visibility:hidden}
        button,a{font:inherit;color:inherit}button{background:none;border:0;padding:0;margin:0;cursor:pointer;text-align:inherit}
        .xz-btn{display:flex;flex-direction:column;align-items:center;justify-content:center;gap:2px;min-height:44px;text-decoration:none;text-align:center;touch-action:manipulation}.xz-ta-start.xz-btn{align-items:flex-start;text-align:start}.xz-ta-end.xz-btn{align-items:flex-end;text-align:end}
        .xz-btn:disabled{opacity:.5;cursor:default}.xz-btn:active{transform:scale(.98)}
        .xz-purchase-button{background:var(--c-accent,#2563eb);color:var(--c-onAccent,#fff);border-radius:12px;padding:14px 20px;font-weight:600;position:relative}.xz-sublabel{font-size:.78em;font-weight:400;opacity:.85}
        .xz-purchase-button[aria-busy=true]>*{opacity:0}.xz-purchase-button[aria-busy=true]::after{content:"";position:absolute;width:1.2em;height:1.2em;border:2px solid currentColor;border-right-color:transparent;border-radius:50%;animation:xz-spin .8s linear infinite}@keyframes xz-spin{to{transform:rotate(360deg)}}
        [data-delay]{visibility:hidden}
        .xz-badge{display:inline-block;width:max-content;max-width:100%;padding:4px 10px;border-radius:999px;font-size:calc(12rem/var(--xz-b));font-weight:700;line-height:1.2}.xz-badge-filled{background:color-mix(in srgb,currentColor 16%,transparent)}.xz-badge-outline{border:1px solid currentColor}
        .xz-divider{border:0;margin:0;align-self:stretch;background:color-mix(in srgb,currentColor 20%,transparent);flex:none}
        .xz-feature-list{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:10px}.xz-feature-list>li{display:flex;gap:12px;align-items:baseline}.xz-icon{flex:none;width:1.2em;text-align:center}
        .xz-timer{margin:0;font-variant-numeric:tabular-nums}.xz-timer[hidden]{display:none}
        .xz-product-selector{display:flex;flex-direction:column;gap:10px}.xz-segments{flex-direction:row;gap:8px}.xz-segments>.xz-option{flex:1 1 0;min-width:0}.xz-segments .xz-opt-default{flex-direction:column;align-items:center;text-align:center;gap:2px;padding:12px 8px}.xz-list{gap:6px}
        .xz-option{position:relative;cursor:pointer;border-radius:14px;transition:box-shadow .2s,opacity .2s;-webkit-user-select:none;user-select:none}.xz-option[aria-checked=false]{opacity:.78}.xz-option[aria-checked=true]{box-shadow:0 0 0 2px var(--xz-sel)}.xz-option>*{height:100%}
        .xz-opt-default{display:flex;justify-content:space-between;gap:12px;padding:14px 16px;border-radius:inherit;border:1px solid color-mix(in srgb,currentColor 18%,transparent);overflow-wrap:anywhere}
        .xz-carousel{display:flex;flex-direction:column;gap:10px;min-width:0}.xz-track{display:flex;overflow-x:auto;scroll-snap-type:x mandatory;scrollbar-width:none;overscroll-behavior-x:contain;scroll-behavior:smooth}.xz-track::-webkit-scrollbar{display:none}.xz-slide{flex:0 0 100%;min-width:0;scroll-snap-align:start;display:flex;flex-direction:column}.xz-slide>*{flex:1 0 auto}
        .xz-dots{display:flex;justify-content:center;gap:4px}.xz-dot{width:20px;height:20px;display:grid;place-items:center}.xz-dot::before{content:"";width:7px;height:7px;border-radius:50%;background:currentColor;opacity:.3;transition:opacity .2s,transform .2s}.xz-dot[aria-current=true]::before{opacity:.9;transform:scale(1.2)}
        .xz-footer-links{display:flex;flex-wrap:wrap;justify-content:center;align-items:center;gap:4px 10px;font-size:calc(12rem/var(--xz-b))}.xz-footer-links.xz-ta-start{justify-content:flex-start}.xz-footer-links.xz-ta-end{justify-content:flex-end}.xz-footer-links a{text-decoration:none}.xz-footer-links a:hover{text-decoration:underline}.xz-footer-links>*{min-height:24px;display:inline-flex;align-items:center}
        .xz-shimmer{position:relative;overflow:hidden}.xz-shimmer::after{content:"";position:absolute;inset:0;pointer-events:none;background:linear-gradient(100deg,transparent 30%,rgba(255,255,255,.45) 50%,transparent 70%);transform:translateX(-100%);animation:xz-l-shimmer var(--xz-ld) ease-in-out var(--xz-lde) infinite}
        :focus{outline:none}:focus-visible{outline:3px solid var(--xz-focus);outline-offset:3px;box-shadow:0 0 0 6px rgba(255,255,255,.6)}
        @media (prefers-reduced-motion:reduce){.xz-anim{animation:xz-i-fade var(--xz-fd,0ms) ease-out var(--xz-fdl,0ms) both!important}.xz-shimmer::after{animation:none!important;display:none}.xz-track{scroll-behavior:auto}.xz-media>*,.xz-bg>video{transition:none}}
        """#
}
