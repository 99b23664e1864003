extension PaywallTemplates {
    /// Dark, full-bleed video background with a scrim, countdown offer, plan cards and a pulsing CTA.
    static let cinematicSource = #"""
        {
          "schemaVersion": 2,
          "id": "pw_cinematic",
          "name": "Cinematic",
          "locales": ["en", "de"],
          "defaultLocale": "en",
          "theme": {
            "colors": {
              "bg": "#050505",
              "panel": { "light": "#1C1C1E", "dark": "#141416" },
              "panelSelected": "#2A2416",
              "text": "#FFFFFF",
              "muted": "#A1A1AA",
              "accent": "#F5C542",
              "onAccent": "#0A0A0A",
              "hairline": "#FFFFFF26"
            },
            "fonts": {
              "heading": { "family": "Inter", "weight": 800 },
              "body": { "family": "Inter", "weight": 400 }
            },
            "radii": { "card": 16, "button": 14, "pill": 999 }
          },
          "products": [
            { "slot": "yearly", "storeProductId": "com.example.streaming.pro.yearly", "preselected": true },
            { "slot": "monthly", "storeProductId": "com.example.streaming.pro.monthly" }
          ],
          "settings": {
            "dismissable": true,
            "safeArea": "all",
            "dismissDelayMs": 1500,
            "background": {
              "kind": "video",
              "src": "https://xizor.localhost/v1/assets/templates/cinematic-hero-loop.mp4",
              "poster": "https://xizor.localhost/v1/assets/templates/cinematic-hero-poster.jpg",
              "loop": true,
              "muted": true,
              "overlay": {
                "kind": "linear",
                "angle": 180,
                "stops": [
                  { "color": "#05050500", "position": 0 },
                  { "color": "#050505B3", "position": 0.45 },
                  { "color": "#050505", "position": 0.8 }
                ]
              }
            }
          },
          "root": {
            "type": "stack",
            "id": "root",
            "direction": "vertical",
            "gap": 16,
            "padding": { "horizontal": 24, "top": 8, "bottom": 12 },
            "alignment": "stretch",
            "distribution": "end",
            "children": [
              {
                "type": "stack",
                "direction": "horizontal",
                "alignment": "center",
                "distribution": "space_between",
                "children": [
                  {
                    "type": "badge",
                    "text": { "en": "LIMITED OFFER", "de": "BEGRENZTES ANGEBOT" },
                    "variant": "outline",
                    "style": {
                      "color": "$accent",
                      "border": { "width": 1, "color": "$accent" },
                      "borderRadius": "$pill",
                      "padding": { "horizontal": 10, "vertical": 4 },
                      "font": { "family": "$body", "size": 12, "weight": 700, "letterSpacing": 1.2 }
                    },
                    "animation": { "loop": { "kind": "shimmer", "durationMs": 2800 } }
                  },
                  {
                    "type": "button",
                    "id": "close",
                    "label": { "en": "Not now", "de": "Später" },
                    "action": { "type": "close" },
                    "accessibilityLabel": { "en": "Close", "de": "Schließen" },
                    "style": { "color": "$muted", "font": { "size": 15 }, "padding": 8 }
                  }
                ]
              },
              { "type": "spacer" },
              {
                "type": "text",
                "id": "headline",
                "text": { "en": "Unlock the **whole** story", "de": "Die **ganze** Geschichte freischalten" },
                "style": {
                  "color": "$text",
                  "font": { "family": "$heading", "size": 38, "weight": 800, "lineHeight": 1.08, "letterSpacing": -0.5 }
                },
                "animation": {
                  "entrance": { "kind": "slide_up", "delayMs": 120, "durationMs": 450, "easing": [0.16, 1, 0.3, 1] }
                }
              },
              {
                "type": "text",
                "text": {
                  "en": "Every series, every film — in *4K HDR* on all your screens.",
                  "de": "Jede Serie, jeder Film — in *4K HDR* auf all deinen Bildschirmen."
                },
                "style": { "color": "$muted", "font": { "family": "$body", "size": 17, "lineHeight": 1.35 } },
                "animation": { "entrance": { "kind": "fade", "delayMs": 220, "durationMs": 400 } }
              },
              {
                "type": "feature_list",
                "iconColor": "$accent",
                "items": [
                  { "icon": "✦", "text": { "en": "New episodes the day they air", "de": "Neue Folgen am Tag der Ausstrahlung" } },
                  { "icon": "✦", "text": { "en": "Download and watch **offline**", "de": "Herunterladen und **offline** schauen" } },
                  { "icon": "✦", "text": { "en": "No ads, ever", "de": "Niemals Werbung" } }
                ],
                "style": { "color": "$text", "font": { "size": 16 } },
                "animation": { "entrance": { "kind": "slide_up", "delayMs": 300, "durationMs": 450, "easing": "ease_out" } }
              },
              {
                "type": "timer",
                "id": "launch_offer",
                "kind": "duration",
                "durationSeconds": 86400,
                "format": "hh:mm:ss",
                "onExpire": "hide",
                "label": { "en": "Launch price ends in {{timer.remaining}}", "de": "Einführungspreis endet in {{timer.remaining}}" },
                "style": { "color": "$accent", "textAlign": "center", "font": { "size": 14, "weight": 600 } }
              },
              {
                "type": "product_selector",
                "id": "plans",
                "layout": "cards",
                "slots": ["yearly", "monthly"],
                "option": {
                  "type": "stack",
                  "direction": "horizontal",
                  "alignment": "center",
                  "distribution": "space_between",
                  "style": {
                    "background": "$panel",
                    "borderRadius": "$card",
                    "padding": { "horizontal": 16, "vertical": 14 },
                    "border": { "width": 1, "color": "$hairline" }
                  },
                  "children": [
                    {
                      "type": "stack",
                      "direction": "vertical",
                      "gap": 2,
                      "alignment": "start",
                      "children": [
                        { "type": "text", "text": { "en": "**{{product.title}}**", "de": "**{{product.title}}**" }, "style": { "color": "$text", "font": { "size": 16 } } },
                        {
                          "type": "text",
                          "text": { "en": "{{product.pricePerMonth}} per month", "de": "{{product.pricePerMonth}} pro Monat" },
                          "style": { "color": "$muted", "font": { "size": 13 } }
                        }
                      ]
                    },
                    {
                      "type": "text",
                      "text": { "en": "{{product.price}} / {{product.period}}", "de": "{{product.price}} / {{product.period}}" },
                      "style": { "color": "$text", "font": { "size": 15, "weight": 600 }, "textAlign": "trailing" }
                    }
                  ]
                }
              },
              {
                "type": "purchase_button",
                "id": "cta",
                "productSlot": "$selected",
                "label": { "en": "Start watching", "de": "Jetzt loslegen" },
                "sublabel": { "en": "Cancel anytime in Settings", "de": "Jederzeit in den Einstellungen kündbar" },
                "accessibilityLabel": { "en": "Subscribe to the selected plan", "de": "Ausgewählten Tarif abonnieren" },
                "style": {
                  "background": "$accent",
                  "color": "$onAccent",
                  "borderRadius": "$button",
                  "padding": { "vertical": 16 },
                  "textAlign": "center",
                  "font": { "family": "$body", "size": 17, "weight": 700 },
                  "shadow": { "color": "#F5C54259", "radius": 24, "y": 8 },
                  "width": "fill"
                },
                "animation": {
                  "entrance": { "kind": "scale", "delayMs": 380, "durationMs": 500, "easing": "spring" },
                  "loop": { "kind": "pulse", "durationMs": 2400 }
                }
              },
              { "type": "divider", "thickness": 1, "color": "$hairline", "inset": 48 },
              {
                "type": "footer_links",
                "privacyUrl": "https://example.com/legal/privacy",
                "termsUrl": "https://example.com/legal/terms",
                "showRestore": true,
                "labels": {
                  "privacy": { "en": "Privacy", "de": "Datenschutz" },
                  "terms": { "en": "Terms", "de": "AGB" },
                  "restore": { "en": "Restore", "de": "Wiederherstellen" }
                },
                "style": { "color": "$muted", "font": { "size": 12 }, "textAlign": "center" }
              }
            ]
          }
        }
        """#
}
