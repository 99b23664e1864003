import PaywallFormat

/// Labels the page needs when the document gives none, picked like any LocalizedText.
enum DefaultStrings {
    static let privacy: LocalizedText = [
        "en": "Privacy", "de": "Datenschutz", "fr": "Confidentialité", "es": "Privacidad", "it": "Privacy",
        "pt": "Privacidade",
    ]
    static let terms: LocalizedText = [
        "en": "Terms", "de": "AGB", "fr": "Conditions", "es": "Términos", "it": "Termini", "pt": "Termos",
    ]
    static let restore: LocalizedText = [
        "en": "Restore", "de": "Wiederherstellen", "fr": "Restaurer", "es": "Restaurar", "it": "Ripristina",
        "pt": "Restaurar",
    ]
    static let restorePurchases: LocalizedText = [
        "en": "Restore purchases", "de": "Käufe wiederherstellen", "fr": "Restaurer les achats",
        "es": "Restaurar compras", "it": "Ripristina acquisti", "pt": "Restaurar compras",
    ]
    static let legal: LocalizedText = [
        "en": "Legal", "de": "Rechtliches", "fr": "Mentions légales", "es": "Legal", "it": "Note legali", "pt": "Legal",
    ]
}
