#ifndef XIZOR_CQRENCODE_SHIM_H
#define XIZOR_CQRENCODE_SHIM_H
/* libqrencode (Debian's libqrencode-dev): the QR code of a TOTP enrolment's otpauth:// URI. */
#include <qrencode.h>
#endif
