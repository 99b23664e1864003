extension PaywallTemplates {
    /// Light/dark adaptive, editorial: header image, testimonial carousel (with a video page), one clear offer.
    static let cleanSource = #"""
        {
          "schemaVersion": 2,
          "id": "pw_clean",
          "name": "Clean",
          "locales": ["en", "de"],
          "defaultLocale": "en",
          "theme": {
            "colors": {
              "bg": { "light": "#FFFFFF", "dark": "#0B0B0C" },
              "text": { "light": "#111111", "dark": "#F4F4F5" },
              "muted": { "light": "#6B7280", "dark": "#A1A1AA" },
              "card": { "light": "#F4F4F5", "dark": "#1C1C1E" },
              "accent": "#2563EB",
              "onAccent": "#FFFFFF"
            },
            "fonts": { "heading": { "family": "Source Serif 4", "weight": 600 } },
            "radii": { "card": 20, "button": 12 }
          },
          "products": [
            { "slot": "yearly", "storeProductId": "com.example.notes.pro.yearly" },
            { "slot": "monthly", "storeProductId": "com.example.notes.pro.monthly" }
          ],
          "settings": {
            "dismissable": true,
            "safeArea": "all",
            "background": { "kind": "color", "color": "$bg" }
          },
          "root": {
            "type": "stack",
            "direction": "vertical",
            "scroll": true,
            "gap": 20,
            "padding": { "horizontal": 24, "vertical": 16 },
            "children": [
              {
                "type": "stack",
                "direction": "horizontal",
                "distribution": "end",
                "children": [
                  {
                    "type": "button",
                    "label": { "en": "✕", "de": "✕" },
                    "action": { "type": "close" },
                    "accessibilityLabel": { "en": "Close", "de": "Schließen" },
                    "style": { "color": "$muted", "font": { "size": 20 }, "padding": 8 }
                  }
                ]
              },
              {
                "type": "image",
                "src": "https://xizor.localhost/v1/assets/templates/clean-header.png",
                "blurhash": "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
                "aspectRatio": 1.6,
                "fit": "contain",
                "lazy": false,
                "alt": { "en": "A tidy notebook on a desk", "de": "Ein aufgeräumtes Notizbuch auf einem Schreibtisch" },
                "animation": { "entrance": { "kind": "fade", "durationMs": 300 } }
              },
              {
                "type": "text",
                "text": { "en": "Think clearly with **Notes Pro**", "de": "Klarer denken mit **Notes Pro**" },
                "style": { "color": "$text", "textAlign": "center", "font": { "family": "$heading", "size": 30, "weight": 600 } },
                "animation": { "entrance": { "kind": "slide_up", "delayMs": 80, "easing": "ease_in_out" } }
              },
              {
                "type": "carousel",
                "id": "testimonials",
                "autoAdvanceMs": 4500,
                "loop": true,
                "indicator": "dots",
                "lazyRender": true,
                "pages": [
                  {
                    "type": "stack",
                    "direction": "vertical",
                    "gap": 8,
                    "style": { "background": "$card", "borderRadius": "$card", "padding": 20 },
                    "children": [
                      { "type": "text", "text": { "en": "“The only notes app I kept.”", "de": "„Die einzige Notiz-App, die ich behalten habe.“" }, "style": { "color": "$text", "font": { "size": 18, "italic": true } } },
                      { "type": "text", "text": { "en": "— Maya, designer", "de": "— Maya, Designerin" }, "style": { "color": "$muted", "font": { "size": 14 } } }
                    ]
                  },
                  {
                    "type": "video",
                    "src": "https://xizor.localhost/v1/assets/templates/clean-sync-demo.mp4",
                    "poster": "https://xizor.localhost/v1/assets/templates/clean-sync-demo-poster.jpg",
                    "loop": true,
                    "muted": true,
                    "autoplay": true,
                    "lazy": true,
                    "aspectRatio": 1.6,
                    "fit": "cover",
                    "accessibilityLabel": { "en": "Notes syncing between phone and laptop", "de": "Notizen synchronisieren zwischen Handy und Laptop" },
                    "style": { "borderRadius": "$card" }
                  },
                  {
                    "type": "stack",
                    "direction": "vertical",
                    "gap": 8,
                    "style": { "background": "$card", "borderRadius": "$card", "padding": 20 },
                    "children": [
                      { "type": "text", "text": { "en": "“Search finds *everything*.”", "de": "„Die Suche findet *alles*.“" }, "style": { "color": "$text", "font": { "size": 18, "italic": true } } },
                      { "type": "text", "text": { "en": "— Jonas, researcher", "de": "— Jonas, Forscher" }, "style": { "color": "$muted", "font": { "size": 14 } } }
                    ]
                  }
                ]
              },
              { "type": "spacer", "size": 4 },
              {
                "type": "purchase_button",
                "productSlot": "yearly",
                "label": { "en": "Try {{product.trialDays}} days free", "de": "{{product.trialDays}} Tage kostenlos testen" },
                "sublabel": { "en": "then {{product.price}} per {{product.period}}", "de": "danach {{product.price}} pro {{product.period}}" },
                "style": {
                  "background": "$accent",
                  "color": "$onAccent",
                  "borderRadius": "$button",
                  "padding": { "vertical": 15 },
                  "textAlign": "center",
                  "font": { "size": 17, "weight": 600 }
                }
              },
              {
                "type": "button",
                "label": { "en": "Or {{products.monthly.price}} monthly", "de": "Oder {{products.monthly.price}} monatlich" },
                "action": { "type": "purchase", "productSlot": "monthly" },
                "style": { "color": "$accent", "textAlign": "center", "font": { "size": 15 } }
              },
              {
                "type": "restore_button",
                "label": { "en": "Already subscribed? Restore", "de": "Schon abonniert? Wiederherstellen" },
                "style": { "color": "$muted", "textAlign": "center", "font": { "size": 13 } }
              },
              {
                "type": "footer_links",
                "privacyUrl": "https://example.com/notes/privacy",
                "termsUrl": "https://example.com/notes/terms",
                "showRestore": false,
                "style": { "color": "$muted", "font": { "size": 12 } }
              }
            ]
          }
        }
        """#
}
