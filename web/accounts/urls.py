"""The accounts' pages (included from casino/urls.py under ``accounts/``): log in, log out, change
one's password. No password reset by e-mail: staff passwords are reset by an admin (the admin's
user page, or ``manage.py changepassword``), and every reset is in the access log."""

from django.contrib.auth import views as auth_views
from django.urls import path

from web.accounts.sessions import LoginView

urlpatterns = [
    path("login/", LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password_change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("password_change/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
]
