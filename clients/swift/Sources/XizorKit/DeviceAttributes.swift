import Foundation

/// What the server's rules read as `device.*`, sent with every request: the platform, the app's
/// and this library's versions, the OS version and the device's locale (docs/targeting.md). Read
/// once per process; none of it changes while the app runs.
struct DeviceAttributes: Sendable, Equatable {
    var platform: String
    var appVersion: String?
    var sdkVersion: String
    var osVersion: String
    var locale: String

    /// The headers the server reads them from.
    var headers: [String: String] {
        var headers = [
            "X-Xizor-Platform": platform, "X-Xizor-SDK-Version": sdkVersion, "X-Xizor-OS-Version": osVersion,
            "X-Xizor-Device-Locale": locale,
        ]
        if let appVersion { headers["X-Xizor-App-Version"] = appVersion }
        return headers.filter { !$0.value.isEmpty && $0.value.utf8.count <= 64 }
    }

    /// `appVersion` given in the configuration wins over the bundle's `CFBundleShortVersionString`.
    static func current(appVersion: String?) -> DeviceAttributes {
        let os = ProcessInfo.processInfo.operatingSystemVersion
        return DeviceAttributes(
            platform: platform,
            appVersion: appVersion ?? Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String,
            sdkVersion: XizorKitVersion.current,
            osVersion: "\(os.majorVersion).\(os.minorVersion).\(os.patchVersion)",
            locale: Locale.current.identifier.replacingOccurrences(of: "_", with: "-"))
    }

    static var platform: String {
        #if os(visionOS)
            "visionos"
        #elseif os(iOS)
            // iPadOS reports as iOS: the same App Store, and UIDevice would need the main actor.
            "ios"
        #elseif os(macOS)
            "macos"
        #elseif os(tvOS)
            "tvos"
        #elseif os(watchOS)
            "watchos"
        #elseif os(Android)
            "android"
        #else
            "linux"
        #endif
    }
}
