import Foundation
import PaywallFormat

/// Animations as CSS: entrance and loop presets are keyframes (only the used ones are emitted); a
/// node's timing goes into its inline `animation`. Reduced motion is handled by one rule in the base
/// stylesheet that replaces every `.xz-anim` animation with a fade of the entrance's duration (so loops,
/// which live in the same `animation` list, stop).
struct Motion {
    /// What a node's animation adds to its element.
    struct NodeMotion {
        var declarations: [String] = []
        var classes: [String] = []
    }

    private(set) var usedKeyframes: Set<String> = []

    mutating func node(_ animation: Animation?) -> NodeMotion {
        guard let animation else { return NodeMotion() }
        var result = NodeMotion()
        var entranceEnd = 0
        var list: [String] = []
        var springList: [String]? = nil
        if let e = animation.entrance, e.kind != .none {
            let name = "xz-i-" + e.kind.rawValue
            usedKeyframes.insert(name)
            let head = "\(name) \(e.durationMs)ms "
            let tail = " \(e.delayMs)ms both"
            list.append(head + Motion.easing(e.easing) + tail)
            if case .preset(.spring) = e.easing { springList = [head + Motion.springLinear + tail] }
            entranceEnd = e.delayMs + e.durationMs
            result.declarations += ["--xz-fd:\(e.durationMs)ms", "--xz-fdl:\(e.delayMs)ms"]
        }
        if let l = animation.loop, l.kind != .none {
            if l.kind == .shimmer {
                // The sweep runs on ::after so the element's own transform stays free.
                result.classes.append("xz-shimmer")
                result.declarations += ["--xz-ld:\(l.durationMs)ms", "--xz-lde:\(entranceEnd)ms"]
                usedKeyframes.insert("xz-l-shimmer")
            } else {
                let name = "xz-l-" + l.kind.rawValue
                usedKeyframes.insert(name)
                let timing = l.kind == .rotate ? "linear" : "ease-in-out"
                let loop = "\(name) \(l.durationMs)ms \(timing) \(entranceEnd)ms infinite"
                list.append(loop)
                springList?.append(loop)
            }
        }
        if !list.isEmpty || result.classes.contains("xz-shimmer") {
            usedKeyframes.insert("xz-i-fade")  // what reduced motion turns every entrance into
            result.classes.insert("xz-anim", at: 0)
        }
        if !list.isEmpty {
            // Browsers without `linear()` keep the first declaration (a cubic-bezier close to the spring).
            result.declarations.insert("animation:" + list.joined(separator: ","), at: 0)
            if let springList { result.declarations.insert("animation:" + springList.joined(separator: ","), at: 1) }
        }
        return result
    }

    /// The keyframes this page uses, in a fixed order.
    var keyframesCSS: String {
        usedKeyframes.sorted().compactMap { Motion.keyframes[$0] }.joined()
    }

    static func easing(_ e: Easing) -> String {
        switch e {
        case .preset(.linear): return "linear"
        case .preset(.ease): return "ease"
        case .preset(.ease_in): return "ease-in"
        case .preset(.ease_out): return "ease-out"
        case .preset(.ease_in_out): return "ease-in-out"
        case .preset(.spring): return springFallback
        case .cubicBezier(let x1, let y1, let x2, let y2):
            // CSS requires x1, x2 in [0, 1]; y may overshoot.
            let c = { (v: Double) in CSSValue.number(min(1, max(0, v))) }
            return "cubic-bezier(\(c(x1)),\(CSSValue.number(y1)),\(c(x2)),\(CSSValue.number(y2)))"
        }
    }

    /// The spring, honestly: a critically damped spring x(t) = 1 − (1 + ωt)·e^(−ωt) (SwiftUI `.spring`
    /// without bounce, Reanimated `withSpring` at critical damping), with ω chosen so the motion is within
    /// 0.1 % of its target at `durationMs` (the seed: duration = settle time). Sampled at 20 steps into a
    /// CSS `linear()` easing; being critically damped it never overshoots.
    static let springLinear: String = {
        // Solve (1 + u)·e^(−u) = 0.001 for u by bisection.
        var lo = 1.0
        var hi = 20.0
        for _ in 0..<60 {
            let mid = (lo + hi) / 2
            if (1 + mid) * exp(-mid) > 0.001 { lo = mid } else { hi = mid }
        }
        let u = (lo + hi) / 2
        var points: [String] = []
        for i in 0...20 {
            let t = Double(i) / 20
            let x = i == 20 ? 1 : 1 - (1 + u * t) * exp(-u * t)
            points.append(CSSValue.number(x))
        }
        return "linear(\(points.joined(separator: ",")))"
    }()

    /// The closest cubic-bezier to that curve, for engines without `linear()`.
    static let springFallback = "cubic-bezier(0.2,0.9,0.3,1)"

    static let keyframes: [String: String] = [
        "xz-i-fade": "@keyframes xz-i-fade{from{opacity:0}}",
        "xz-i-slide_up": "@keyframes xz-i-slide_up{from{opacity:0;transform:translateY(24px)}}",
        "xz-i-slide_down": "@keyframes xz-i-slide_down{from{opacity:0;transform:translateY(-24px)}}",
        "xz-i-slide_left": "@keyframes xz-i-slide_left{from{opacity:0;transform:translateX(24px)}}",
        "xz-i-slide_right": "@keyframes xz-i-slide_right{from{opacity:0;transform:translateX(-24px)}}",
        "xz-i-scale": "@keyframes xz-i-scale{from{opacity:0;transform:scale(.85)}}",
        "xz-l-pulse": "@keyframes xz-l-pulse{50%{transform:scale(1.04)}}",
        "xz-l-float": "@keyframes xz-l-float{50%{transform:translateY(-6px)}}",
        "xz-l-bounce":
            "@keyframes xz-l-bounce{0%,50%,100%{transform:none}20%{transform:translateY(-8px)}35%{transform:translateY(-3px)}}",
        "xz-l-rotate": "@keyframes xz-l-rotate{to{transform:rotate(360deg)}}",
        "xz-l-shimmer": "@keyframes xz-l-shimmer{0%{transform:translateX(-100%)}60%,100%{transform:translateX(100%)}}",
    ]
}
