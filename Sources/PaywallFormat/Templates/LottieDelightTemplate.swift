extension PaywallTemplates {
    /// Playful: a Lottie mascot (with an image fallback for older renderers) on a soft gradient.
    static let lottieDelightSource = #"""
        {
          "schemaVersion": 2,
          "id": "pw_lottie_delight",
          "name": "Lottie Delight",
          "locales": ["en", "de"],
          "defaultLocale": "en",
          "theme": {
            "colors": {
              "top": "#FDE68A",
              "bottom": "#FBCFE8",
              "text": "#1F1300",
              "muted": { "light": "#6B4F2A", "dark": "#7A5C33" },
              "accent": "#7C3AED",
              "onAccent": "#FFFFFF",
              "chip": "#FFFFFFB3"
            },
            "fonts": { "rounded": { "family": "Nunito", "weight": 800 } },
            "radii": { "pill": 999, "card": 24 }
          },
          "products": [
            { "slot": "yearly", "storeProductId": "com.example.habits.plus.yearly" }
          ],
          "settings": {
            "dismissable": true,
            "safeArea": "all",
            "background": {
              "kind": "gradient",
              "gradient": {
                "kind": "linear",
                "angle": 160,
                "stops": [
                  { "color": "$top", "position": 0 },
                  { "color": "$bottom", "position": 1 }
                ]
              }
            }
          },
          "root": {
            "type": "stack",
            "direction": "layered",
            "children": [
              {
                "type": "stack",
                "direction": "vertical",
                "gap": 18,
                "alignment": "center",
                "padding": { "horizontal": 28, "top": 48, "bottom": 16 },
                "children": [
                  {
                    "type": "lottie",
                    "id": "mascot",
                    "src": "https://xizor.localhost/v1/assets/templates/lottie-delight-mascot-wave.json",
                    "loop": true,
                    "speed": 1,
                    "autoplay": true,
                    "aspectRatio": 1,
                    "style": { "width": 220 },
                    "accessibilityLabel": { "en": "A waving mascot", "de": "Ein winkendes Maskottchen" },
                    "fallback": {
                      "type": "image",
                      "src": "https://xizor.localhost/v1/assets/templates/lottie-delight-mascot-wave.png",
                      "aspectRatio": 1,
                      "fit": "contain",
                      "alt": { "en": "A waving mascot", "de": "Ein winkendes Maskottchen" },
                      "style": { "width": 220 }
                    },
                    "animation": {
                      "entrance": { "kind": "scale", "durationMs": 600, "easing": "spring" },
                      "loop": { "kind": "float", "durationMs": 3000 }
                    }
                  },
                  {
                    "type": "text",
                    "text": { "en": "Keep your streak **going**!", "de": "Bleib **dran**!" },
                    "style": { "color": "$text", "textAlign": "center", "font": { "family": "$rounded", "size": 32, "weight": 800 } },
                    "animation": { "entrance": { "kind": "slide_down", "delayMs": 150, "easing": "ease_out" } }
                  },
                  {
                    "type": "feature_list",
                    "iconColor": "$accent",
                    "items": [
                      { "icon": "🔥", "text": { "en": "Streak freezes when life happens", "de": "Serien-Schutz, wenn das Leben dazwischenkommt" } },
                      { "icon": "📈", "text": { "en": "Insights on your *best* days", "de": "Auswertungen deiner *besten* Tage" } },
                      { "icon": "🎨", "text": { "en": "Themes and custom icons", "de": "Themen und eigene Symbole" } }
                    ],
                    "style": { "background": "$chip", "borderRadius": "$card", "padding": 18, "color": "$text" },
                    "animation": { "entrance": { "kind": "slide_left", "delayMs": 250, "durationMs": 400, "easing": "ease_out" } }
                  },
                  { "type": "spacer", "flex": 1 },
                  {
                    "type": "purchase_button",
                    "productSlot": "yearly",
                    "label": { "en": "Unlock Plus — {{product.price}} / {{product.period}}", "de": "Plus freischalten — {{product.price}} / {{product.period}}" },
                    "style": {
                      "background": "$accent",
                      "color": "$onAccent",
                      "borderRadius": "$pill",
                      "padding": { "vertical": 16, "horizontal": 24 },
                      "textAlign": "center",
                      "font": { "family": "$rounded", "size": 18, "weight": 800 },
                      "width": "fill"
                    },
                    "animation": {
                      "entrance": { "kind": "slide_right", "delayMs": 350, "easing": "ease_out" },
                      "loop": { "kind": "bounce", "durationMs": 1800 }
                    }
                  },
                  {
                    "type": "footer_links",
                    "privacyUrl": "https://example.com/habits/privacy",
                    "termsUrl": "https://example.com/habits/terms",
                    "style": { "color": "$muted", "font": { "size": 12 } }
                  }
                ]
              },
              {
                "type": "stack",
                "direction": "horizontal",
                "distribution": "end",
                "padding": 12,
                "children": [
                  {
                    "type": "button",
                    "label": { "en": "✕", "de": "✕" },
                    "action": { "type": "close" },
                    "accessibilityLabel": { "en": "Close", "de": "Schließen" },
                    "style": { "color": "$muted", "font": { "size": 20 }, "padding": 8, "opacity": 0.8 },
                    "animation": { "loop": { "kind": "rotate", "durationMs": 8000 } }
                  }
                ]
              }
            ]
          }
        }
        """#
}
